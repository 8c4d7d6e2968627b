/* le: explicit little-endian stores and loads for on-disk layouts.
 *
 * Contract: knows no layout, only byte order: src/image's image format and
 * the simulated kernel's header page use it. Works on unaligned byte
 * pointers; the host's endianness never leaks into a layout.
 */
#ifndef DMO_UTIL_LE_H
#define DMO_UTIL_LE_H

#include <stdint.h>

static inline void dmo_put_le16(uint8_t *p, uint16_t v)
{
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
}

static inline void dmo_put_le32(uint8_t *p, uint32_t v)
{
        for (int i = 0; i < 4; i++)
                p[i] = (uint8_t)(v >> (8 * i));
}

static inline void dmo_put_le64(uint8_t *p, uint64_t v)
{
        for (int i = 0; i < 8; i++)
                p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t dmo_get_le16(const uint8_t *p)
{
        return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t dmo_get_le32(const uint8_t *p)
{
        uint32_t v = 0;
        for (int i = 3; i >= 0; i--)
                v = (v << 8) | p[i];
        return v;
}

static inline uint64_t dmo_get_le64(const uint8_t *p)
{
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--)
                v = (v << 8) | p[i];
        return v;
}

#endif
