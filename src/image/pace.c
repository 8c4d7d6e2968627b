#include "image/pace.h"

void dmo_pace_init(struct dmo_pace *p, unsigned max)
{
        p->speed = 1;
        p->max = max ? max : 1;
}

unsigned dmo_pace_update(struct dmo_pace *p, bool disk_idle, bool waited)
{
        /* A wait says more than an idle disk: the queue filled up since. */
        if (waited)
                p->speed = p->speed > 1 ? p->speed / 2 : 1;
        else if (disk_idle)
                p->speed = p->speed * 2 <= p->max ? p->speed * 2 : p->max;
        return p->speed;
}
