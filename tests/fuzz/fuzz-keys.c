/* Fuzz target: the tty key decoder, fed arbitrary bytes with a jumpy clock. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "splash/output/keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct dmo_key_decoder d;
        uint64_t now = 0;

        dmo_key_decoder_init(&d);
        for (size_t i = 0; i < size; i++) {
                struct dmo_key_event ev[2];
                /* Some bytes also move the clock so the Esc timeout paths run. */
                if (i % 7 == 3)
                        now += data[i] % 128;
                size_t n = dmo_key_decoder_push(&d, data[i], now, ev);
                if (n > 2)
                        abort();
                for (size_t j = 0; j < n; j++)
                        if (ev[j].kind == DMO_KEY_CHAR &&
                            (ev[j].codepoint > 0x10ffff || strlen(ev[j].utf8) == 0))
                                abort();
                if (dmo_key_decoder_timeout_ms(&d, now) > DMO_KEY_ESC_TIMEOUT_MS)
                        abort();
        }
        struct dmo_key_event ev;
        dmo_key_decoder_tick(&d, now + 1000, &ev);
        return 0;
}
