/* Fuzz target: the config file parser (/etc/dormouse.conf is read as root in
 * the initramfs; a broken file must never crash resume). */
#include <stdint.h>
#include <string.h>

#include "cli/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct dmo_config cfg;
        struct dmo_config_notes notes = {0};
        dmo_config_init(&cfg);
        dmo_config_parse(&cfg, (const char *)data, size, &notes);
        if (notes.count > DMO_CONFIG_MAX_NOTES)
                __builtin_trap();
        if (memchr(cfg.resume_device, '\0', sizeof(cfg.resume_device)) == NULL)
                __builtin_trap();
        return 0;
}
