/* tpm2-tss loaded on use: see tss2_dl.h. */
#include "keys/tss2_dl.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

int dmo_tss2_load(struct dmo_tss2 *f)
{
        static const char *const names[] = DMO_TSS2_LIBRARIES;
        memset(f, 0, sizeof(*f));
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                f->lib[i] = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
                if (!f->lib[i]) {
                        dmo_tss2_unload(f);
                        return -ENOPKG;
                }
        }
        /* POSIX: dlsym's void * converts to a function pointer. */
#define DMO_TSS2_RESOLVE(l, name)                                                                  \
        *(void **)&f->name = dlsym(f->lib[l], #name);                                              \
        if (!f->name) {                                                                            \
                dmo_tss2_unload(f);                                                                \
                return -ENOPKG;                                                                    \
        }
        DMO_TSS2_FUNCTIONS(DMO_TSS2_RESOLVE)
#undef DMO_TSS2_RESOLVE
        return 0;
}

void dmo_tss2_unload(struct dmo_tss2 *f)
{
        for (size_t i = 0; i < sizeof(f->lib) / sizeof(f->lib[0]); i++)
                if (f->lib[i])
                        dlclose(f->lib[i]);
        memset(f, 0, sizeof(*f));
}
