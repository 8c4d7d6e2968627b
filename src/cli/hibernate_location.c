/* HibernateLocation's JSON, and the os-release fields it carries. */
#include "cli/hibernate_location.h"

#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* One value of an os-release line, without its quotes. */
static void os_value(const char *v, char *out, size_t len)
{
        size_t n = strlen(v);
        while (n && (v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
                n--;
        if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
                v++;
                n -= 2;
        }
        if (n >= len)
                n = len - 1;
        memcpy(out, v, n);
        out[n] = '\0';
}

int dmo_os_release_read(const char *path, struct dmo_os_release *out)
{
        memset(out, 0, sizeof(*out));
        FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        static const struct {
                const char *key;
                size_t off;
        } keys[] = {
            {"ID=", offsetof(struct dmo_os_release, id)},
            {"VERSION_ID=", offsetof(struct dmo_os_release, version_id)},
            {"IMAGE_ID=", offsetof(struct dmo_os_release, image_id)},
            {"IMAGE_VERSION=", offsetof(struct dmo_os_release, image_version)},
        };
        char line[512];
        while (fgets(line, sizeof(line), f))
                for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                        if (strncmp(line, keys[i].key, strlen(keys[i].key)) == 0)
                                os_value(line + strlen(keys[i].key), (char *)out + keys[i].off,
                                         sizeof(out->id));
        fclose(f);
        return 0;
}

int dmo_uuid_normalize(const char *in, char out[37])
{
        char hex[33];
        size_t n = 0;
        for (const char *p = in; *p; p++) {
                if (*p == '-')
                        continue;
                if (!isxdigit((unsigned char)*p) || n == 32)
                        return -EINVAL;
                hex[n++] = (char)tolower((unsigned char)*p);
        }
        if (n != 32)
                return -EINVAL;
        /* Dashes where a UUID has them, and nowhere else. */
        if (strchr(in, '-') &&
            (strlen(in) != 36 || in[8] != '-' || in[13] != '-' || in[18] != '-' || in[23] != '-'))
                return -EINVAL;
        snprintf(out, 37, "%.8s-%.4s-%.4s-%.4s-%.12s", hex, hex + 8, hex + 12, hex + 16, hex + 20);
        return 0;
}

static void add_string(struct json_object *o, const char *key, const char *value)
{
        if (value[0])
                json_object_object_add(o, key, json_object_new_string(value));
}

int dmo_hibernate_location_format(const struct dmo_hibernate_location *loc, char *buf, size_t len)
{
        struct json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        json_object_object_add(o, "uuid", json_object_new_string(loc->uuid));
        json_object_object_add(o, "offset", json_object_new_uint64(loc->offset));
        add_string(o, "kernelVersion", loc->kernel_version);
        add_string(o, "osReleaseId", loc->os.id);
        add_string(o, "osReleaseImageId", loc->os.image_id);
        add_string(o, "osReleaseVersionId", loc->os.version_id);
        add_string(o, "osReleaseImageVersion", loc->os.image_version);
        const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                                 JSON_C_TO_STRING_NOSLASHESCAPE);
        int r = text && strlen(text) < len ? 0 : -ENOBUFS;
        if (r == 0)
                memcpy(buf, text, strlen(text) + 1);
        json_object_put(o);
        return r;
}

/* A string member into out; absent is empty, another type is an error. */
static int get_string(struct json_object *o, const char *key, char *out, size_t len)
{
        struct json_object *v;
        out[0] = '\0';
        if (!json_object_object_get_ex(o, key, &v))
                return 0;
        if (!json_object_is_type(v, json_type_string))
                return -EINVAL;
        snprintf(out, len, "%s", json_object_get_string(v));
        return 0;
}

int dmo_hibernate_location_parse(const char *json, struct dmo_hibernate_location *out)
{
        memset(out, 0, sizeof(*out));
        /* The whole text must be one JSON value: json-c's plain parse
         * would stop after the first and ignore the rest. */
        struct json_tokener *tok = json_tokener_new();
        if (!tok)
                return -ENOMEM;
        size_t len = strlen(json);
        if (len > INT_MAX) {
                json_tokener_free(tok);
                return -EINVAL;
        }
        struct json_object *o = json_tokener_parse_ex(tok, json, (int)len);
        bool whole = o && json_tokener_get_error(tok) == json_tokener_success &&
                     json_tokener_get_parse_end(tok) == len;
        json_tokener_free(tok);
        if (!whole) {
                json_object_put(o);
                return -EINVAL;
        }
        int r = -EINVAL;
        struct json_object *uuid, *offset;
        if (!json_object_is_type(o, json_type_object) ||
            !json_object_object_get_ex(o, "uuid", &uuid) ||
            !json_object_is_type(uuid, json_type_string) ||
            dmo_uuid_normalize(json_object_get_string(uuid), out->uuid) < 0 ||
            !json_object_object_get_ex(o, "offset", &offset) ||
            !json_object_is_type(offset, json_type_int))
                goto out;
        /* A negative offset is no page (json-c keeps numbers above
         * INT64_MAX as unsigned, so they are not negative here). */
        if (json_object_get_int64(offset) < 0)
                goto out;
        out->offset = json_object_get_uint64(offset);
        if (get_string(o, "kernelVersion", out->kernel_version, sizeof(out->kernel_version)) < 0 ||
            get_string(o, "osReleaseId", out->os.id, sizeof(out->os.id)) < 0 ||
            get_string(o, "osReleaseImageId", out->os.image_id, sizeof(out->os.image_id)) < 0 ||
            get_string(o, "osReleaseVersionId", out->os.version_id, sizeof(out->os.version_id)) <
                0 ||
            get_string(o, "osReleaseImageVersion", out->os.image_version,
                       sizeof(out->os.image_version)) < 0)
                goto out;
        r = 0;
out:
        json_object_put(o);
        return r;
}

bool dmo_hibernate_location_is_ours(const struct dmo_hibernate_location *loc,
                                    const struct dmo_os_release *self)
{
        return strcmp(loc->os.id, self->id) == 0 && strcmp(loc->os.image_id, self->image_id) == 0;
}
