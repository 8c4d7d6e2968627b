/* Fuzz target: the kernel command line parser and the resume= spec parser
 * and resolver (against a tree that does not exist, so only strings move). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/cmdline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *line = malloc(size + 1);
        if (!line)
                return 0;
        memcpy(line, data, size);
        line[size] = '\0';
        struct dmo_cmdline c;
        dmo_cmdline_parse(line, &c);
        if (strlen(c.resume) >= sizeof(c.resume))
                abort();
        struct dmo_resume_spec s;
        dmo_resume_spec_parse(line, &s);
        char path[300];
        dmo_resume_device_resolve(line, "/nonexistent-dev", "/nonexistent-sys", path, sizeof(path));
        if (c.resume[0])
                dmo_resume_device_resolve(c.resume, "/nonexistent-dev", "/nonexistent-sys", path,
                                          sizeof(path));
        free(line);
        return 0;
}
