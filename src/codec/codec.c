/* The worker pool. Every slot (a chunk and its two buffers) and every
 * compressor context is allocated in dmo_codec_new(). The engine thread owns
 * the free list and the order ring without locking; one mutex guards the
 * work queue and the slot states that workers change. Per chunk that is one
 * lock round-trip for submit, one for the worker (finish + take next), and
 * one for collect. */
#include "codec/codec.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/chunk.h"
#include "codec/compress.h"
#include "crypto/crypto.h"
#include "util/thread.h"

#define CACHELINE       64
#define MAX_THREADS     1024u
#define MAX_SLOTS       65536u
#define MAX_PAGE_SIZE   (1u << 20)
#define MAX_CHUNK_BYTES (64u << 20)
#define BUF_ALIGN       4096u

enum slot_state {
        SLOT_FREE,
        SLOT_ACQUIRED,
        SLOT_SUBMITTED,
        SLOT_DONE,
        SLOT_COLLECTED,
};

/* A cache line of its own, so that a worker finishing one chunk does not
 * invalidate the line of the chunk the engine is filling. */
struct slot {
        alignas(CACHELINE) struct dmo_chunk chunk;
        enum slot_state state;
};

struct worker {
        alignas(CACHELINE) struct dmo_codec *codec;
        pthread_t thread;
        bool started;
        struct dmo_chunk_coder coder;
};

struct dmo_codec {
        dmo_hash_fn hash;  /* picked for this CPU in dmo_codec_new */
        atomic_uint speed; /* dmo_codec_set_speed's hint; 0: none */
        const struct dmo_crypto_key *key;
        struct dmo_codec_params params;
        const struct dmo_compressor_ops *ops;
        uint32_t capacity;
        unsigned nslots;
        unsigned nworkers; /* 0: work runs inline in submit */

        struct slot *slots;
        struct worker *workers;
        struct dmo_chunk_coder scratch; /* encode_one/decode_one */
        struct dmo_chunk_meter meter;   /* encrypted encoding's costs, every coder's */

        /* Engine thread only. */
        unsigned *free_stack;
        unsigned nfree;
        struct slot **order; /* order[seq % nslots]: the slot submitted as seq */
        uint64_t next_seq;
        uint64_t collect_seq;

        /* Guarded by lock. */
        alignas(CACHELINE) pthread_mutex_t lock;
        pthread_cond_t work_cond; /* workers: queue not empty, or stop */
        pthread_cond_t done_cond; /* engine: the chunk it waits for is done */
        struct slot **queue;      /* ring of submitted slots, nslots long */
        unsigned qhead, qlen;
        struct slot *waiting_for; /* the slot the engine sleeps on, or NULL */
        bool stop;
};

/* C11 wants aligned_alloc sizes to be multiples of the alignment. */
static void *alloc_aligned(size_t align, size_t size)
{
        return aligned_alloc(align, (size + align - 1) & ~(align - 1));
}

static struct slot *slot_of(struct dmo_chunk *chunk)
{
        return (struct slot *)((char *)chunk - offsetof(struct slot, chunk));
}

/* The speed hint as it is when a chunk starts. */
static unsigned current_speed(struct dmo_codec *c)
{
        return atomic_load_explicit(&c->speed, memory_order_relaxed);
}

static void run_chunk(struct dmo_codec *c, const struct dmo_chunk_coder *k, struct dmo_chunk *ch)
{
        if (c->params.dir == DMO_CODEC_ENCODE)
                dmo_chunk_encode(k, ch); /* npages was checked in submit */
        else
                dmo_chunk_decode(k, ch);
}

static void *worker_main(void *arg)
{
        struct worker *w = arg;
        struct dmo_codec *c = w->codec;
        struct slot *finished = NULL;

        dmo_thread_set_name("dmo-codec");
        dmo_thread_yield_to_feeder(); /* best effort: only the pace depends on it */

        pthread_mutex_lock(&c->lock);
        for (;;) {
                if (finished) {
                        finished->state = SLOT_DONE;
                        if (c->waiting_for == finished)
                                pthread_cond_signal(&c->done_cond);
                        finished = NULL;
                }
                while (!c->stop && c->qlen == 0)
                        pthread_cond_wait(&c->work_cond, &c->lock);
                if (c->stop)
                        break;
                struct slot *s = c->queue[c->qhead];
                c->qhead = (c->qhead + 1) % c->nslots;
                c->qlen--;
                pthread_mutex_unlock(&c->lock);

                w->coder.speed = current_speed(c);
                run_chunk(c, &w->coder, &s->chunk);
                finished = s;

                pthread_mutex_lock(&c->lock);
        }
        pthread_mutex_unlock(&c->lock);
        return NULL;
}

static int check_params(const struct dmo_codec_params *p)
{
        if (p->dir != DMO_CODEC_ENCODE && p->dir != DMO_CODEC_DECODE)
                return -EINVAL;
        if (!dmo_compressor_ops_get(p->algo))
                return -EINVAL;
        /* Decompression needs no level: a decoder takes whatever level the
         * image header names (the header check keeps it to the encoder's). */
        if (p->dir == DMO_CODEC_ENCODE && dmo_compress_level_check(p->algo, p->level) < 0)
                return -EINVAL;
        /* A power of two of at least a cache line keeps the zero test simple. */
        if (p->page_size < 64 || p->page_size > MAX_PAGE_SIZE ||
            (p->page_size & (p->page_size - 1)))
                return -EINVAL;
        if (p->chunk_pages < 1 || p->chunk_pages > DMO_CHUNK_MAX_PAGES ||
            (size_t)p->chunk_pages * p->page_size > MAX_CHUNK_BYTES)
                return -EINVAL;
        if (p->threads > MAX_THREADS || p->slots > MAX_SLOTS)
                return -EINVAL;
        return 0;
}

static int coder_init(struct dmo_codec *c, struct dmo_chunk_coder *k, bool encode, bool decode)
{
        size_t chunk_bytes = (size_t)c->params.chunk_pages * c->params.page_size;
        int r;

        k->ops = c->ops;
        k->page_size = c->params.page_size;
        k->chunk_pages = c->params.chunk_pages;
        k->capacity = c->capacity;
        k->hash = c->hash;
        k->encrypted = c->params.encrypted;
        k->key = c->key;
        /* A decoder's scratch coder still encodes (tests, fuzzers), at the
         * fast default: the level it was given is only the image's label. */
        int level = c->params.dir == DMO_CODEC_ENCODE ? c->params.level : 0;
        r = c->ops->ctx_new(level, chunk_bytes, encode, decode, &k->ctx);
        if (r < 0)
                return r;
        if (encode && c->ops->algo != DMO_COMPRESS_NONE) {
                k->gather = alloc_aligned(BUF_ALIGN, chunk_bytes);
                if (!k->gather)
                        return -ENOMEM;
        }
        return 0;
}

static void coder_fini(struct dmo_codec *c, struct dmo_chunk_coder *k)
{
        if (k->ctx)
                c->ops->ctx_free(k->ctx);
        free(k->gather);
        k->ctx = NULL;
        k->gather = NULL;
}

/* Workers take no signals: the engine's signal handling (signalfd, Esc
 * handling in its poll loop) must see every one. */
static int start_workers(struct dmo_codec *c)
{
        for (unsigned i = 0; i < c->nworkers; i++) {
                int r = dmo_thread_start(&c->workers[i].thread, worker_main, &c->workers[i],
                                         DMO_THREAD_STACK_WORKER, DMO_THREAD_NO_SIGNALS);
                if (r < 0)
                        return r;
                c->workers[i].started = true;
        }
        return 0;
}

int dmo_codec_new(const struct dmo_codec_params *params, struct dmo_codec **out)
{
        int r = check_params(params);
        if (r < 0)
                return r;

        struct dmo_codec *c = alloc_aligned(CACHELINE, sizeof(*c));
        if (!c)
                return -ENOMEM;
        memset(c, 0, sizeof(*c));
        c->params = *params;
        c->ops = dmo_compressor_ops_get(params->algo);
        size_t chunk_bytes = (size_t)params->chunk_pages * params->page_size;
        size_t bound = c->ops->bound(chunk_bytes);
        c->capacity = (uint32_t)(bound > chunk_bytes ? bound : chunk_bytes);
        if (params->encrypted)
                c->capacity += DMO_CRYPTO_TAG_LEN;

        if (params->inline_work) {
                c->nworkers = 0;
        } else if (params->threads) {
                c->nworkers = params->threads;
        } else {
                long n = sysconf(_SC_NPROCESSORS_ONLN);
                c->nworkers = n < 1 ? 1 : n > (long)MAX_THREADS ? MAX_THREADS : (unsigned)n;
        }
        c->nslots = params->slots ? params->slots : 4 * (c->nworkers ? c->nworkers : 1);
        if (c->nslots > MAX_SLOTS)
                c->nslots = MAX_SLOTS;

        pthread_mutex_init(&c->lock, NULL);
        pthread_cond_init(&c->work_cond, NULL);
        pthread_cond_init(&c->done_cond, NULL);

        c->slots = alloc_aligned(CACHELINE, c->nslots * sizeof(*c->slots));
        c->free_stack = calloc(c->nslots, sizeof(*c->free_stack));
        c->order = calloc(c->nslots, sizeof(*c->order));
        c->queue = calloc(c->nslots, sizeof(*c->queue));
        if (c->nworkers) {
                c->workers = alloc_aligned(CACHELINE, c->nworkers * sizeof(*c->workers));
                if (c->workers)
                        memset(c->workers, 0, c->nworkers * sizeof(*c->workers));
        }
        if (!c->slots || !c->free_stack || !c->order || !c->queue || (c->nworkers && !c->workers)) {
                r = -ENOMEM;
                goto fail;
        }
        memset(c->slots, 0, c->nslots * sizeof(*c->slots));

        for (unsigned i = 0; i < c->nslots; i++) {
                struct dmo_chunk *ch = &c->slots[i].chunk;
                ch->pages = alloc_aligned(BUF_ALIGN, chunk_bytes);
                ch->payload = alloc_aligned(BUF_ALIGN, c->capacity);
                if (!ch->pages || !ch->payload) {
                        r = -ENOMEM;
                        goto fail;
                }
                /* Handed out lowest first: easier to follow in a debugger. */
                c->free_stack[c->nslots - 1 - i] = i;
        }
        c->nfree = c->nslots;
        c->hash = dmo_hash_pick(c->slots[0].chunk.pages, chunk_bytes);

        /* The scratch coder does both directions so that a test or a fuzzer
         * can encode and decode with one codec; in inline mode it also runs
         * the pool's work. */
        r = coder_init(c, &c->scratch, true, true);
        if (r < 0)
                goto fail;
        bool enc = params->dir == DMO_CODEC_ENCODE;
        const bool measure = enc && params->encrypted && params->measure_costs;
        c->scratch.meter = measure ? &c->meter : NULL; /* inline mode encodes here */
        for (unsigned i = 0; i < c->nworkers; i++) {
                c->workers[i].codec = c;
                r = coder_init(c, &c->workers[i].coder, enc, !enc);
                if (r < 0)
                        goto fail;
                /* A pooled chunk lives until it is released: the writer can
                 * take a raw chunk's bytes from its pages, the reader its
                 * pages from its payload. */
                c->workers[i].coder.in_place = true;
                c->workers[i].coder.meter = measure ? &c->meter : NULL;
        }
        r = start_workers(c);
        if (r < 0)
                goto fail;

        *out = c;
        return 0;
fail:
        dmo_codec_free(c);
        return r;
}

void dmo_codec_free(struct dmo_codec *c)
{
        if (!c)
                return;

        /* Workers finish the chunk in their hands and leave the rest queued. */
        pthread_mutex_lock(&c->lock);
        c->stop = true;
        pthread_cond_broadcast(&c->work_cond);
        pthread_mutex_unlock(&c->lock);
        for (unsigned i = 0; c->workers && i < c->nworkers; i++) {
                if (c->workers[i].started)
                        pthread_join(c->workers[i].thread, NULL);
                coder_fini(c, &c->workers[i].coder);
        }
        coder_fini(c, &c->scratch);

        for (unsigned i = 0; c->slots && i < c->nslots; i++) {
                free(c->slots[i].chunk.pages);
                free(c->slots[i].chunk.payload);
        }
        pthread_cond_destroy(&c->done_cond);
        pthread_cond_destroy(&c->work_cond);
        pthread_mutex_destroy(&c->lock);
        free(c->slots);
        free(c->workers);
        free(c->free_stack);
        free(c->order);
        free(c->queue);
        free(c);
}

uint32_t dmo_codec_payload_capacity(const struct dmo_codec *c)
{
        return c->capacity;
}

void dmo_codec_costs(struct dmo_codec *c, struct dmo_codec_costs *out)
{
        const struct dmo_chunk_meter *m = &c->meter;
        *out = (struct dmo_codec_costs){
            .compress_ns = atomic_load_explicit(&m->compress_ns, memory_order_relaxed),
            .compress_in = atomic_load_explicit(&m->compress_in, memory_order_relaxed),
            .compress_out = atomic_load_explicit(&m->compress_out, memory_order_relaxed),
            .seal_ns = atomic_load_explicit(&m->seal_ns, memory_order_relaxed),
            .seal_bytes = atomic_load_explicit(&m->seal_bytes, memory_order_relaxed),
        };
}

bool dmo_codec_costs_store_pays(const struct dmo_codec_costs *m)
{
        const uint64_t enough = 1u << 20;
        if (m->compress_in < enough || m->seal_bytes < enough || m->compress_out > m->compress_in)
                return false;
        /* seal_ns / seal_bytes per byte, times the bytes compression saved,
         * against compress_ns; in doubles, the products overflow 64 bits. */
        const double saved = (double)(m->compress_in - m->compress_out);
        return (double)m->seal_ns * saved < (double)m->compress_ns * (double)m->seal_bytes;
}

bool dmo_codec_store_pays(struct dmo_codec *c)
{
        if (!c->params.encrypted)
                return true;
        struct dmo_codec_costs m;
        dmo_codec_costs(c, &m);
        return dmo_codec_costs_store_pays(&m);
}

int dmo_codec_set_key(struct dmo_codec *c, const struct dmo_crypto_key *key)
{
        if (!c->params.encrypted || c->collect_seq != c->next_seq)
                return -EINVAL;
        /* Workers read their coder's key only after taking a chunk from the
         * queue under the lock, so these writes happen before those reads. */
        pthread_mutex_lock(&c->lock);
        c->key = key;
        c->scratch.key = key;
        for (unsigned i = 0; i < c->nworkers; i++)
                c->workers[i].coder.key = key;
        pthread_mutex_unlock(&c->lock);
        return 0;
}

int dmo_codec_acquire(struct dmo_codec *c, struct dmo_chunk **chunk)
{
        if (c->nfree == 0)
                return -EAGAIN;
        struct slot *s = &c->slots[c->free_stack[--c->nfree]];
        s->state = SLOT_ACQUIRED;
        s->chunk.error = 0;
        *chunk = &s->chunk;
        return 0;
}

/* A slot's state as the caller sees it. A chunk submitted twice is in
 * flight, and a worker may be setting its state: read it under the lock. */
static enum slot_state caller_slot_state(struct dmo_codec *c, struct slot *s)
{
        if (c->nworkers == 0)
                return s->state;
        pthread_mutex_lock(&c->lock);
        enum slot_state st = s->state;
        pthread_mutex_unlock(&c->lock);
        return st;
}

int dmo_codec_submit(struct dmo_codec *c, struct dmo_chunk *chunk)
{
        struct slot *s = slot_of(chunk);

        if (s < c->slots || s >= c->slots + c->nslots || caller_slot_state(c, s) != SLOT_ACQUIRED)
                return -EINVAL;
        if (c->params.dir == DMO_CODEC_ENCODE &&
            (chunk->npages == 0 || chunk->npages > c->params.chunk_pages))
                return -EINVAL;
        if (c->params.encrypted && !c->key)
                return -ENOKEY;

        chunk->seq = c->next_seq++;
        c->order[chunk->seq % c->nslots] = s;

        if (c->nworkers == 0) {
                struct dmo_chunk_coder pooled = c->scratch;
                pooled.in_place = true;
                pooled.speed = current_speed(c);
                run_chunk(c, &pooled, chunk);
                s->state = SLOT_DONE;
                return 0;
        }

        pthread_mutex_lock(&c->lock);
        s->state = SLOT_SUBMITTED;
        c->queue[(c->qhead + c->qlen) % c->nslots] = s;
        c->qlen++;
        pthread_cond_signal(&c->work_cond);
        pthread_mutex_unlock(&c->lock);
        return 0;
}

int dmo_codec_collect(struct dmo_codec *c, struct dmo_chunk **chunk, bool wait)
{
        if (c->collect_seq == c->next_seq)
                return -ENODATA;

        struct slot *s = c->order[c->collect_seq % c->nslots];
        if (c->nworkers) {
                pthread_mutex_lock(&c->lock);
                while (s->state != SLOT_DONE) {
                        if (!wait) {
                                pthread_mutex_unlock(&c->lock);
                                return -EAGAIN;
                        }
                        c->waiting_for = s;
                        pthread_cond_wait(&c->done_cond, &c->lock);
                        c->waiting_for = NULL;
                }
                pthread_mutex_unlock(&c->lock);
        }
        assert(s->state == SLOT_DONE);
        s->state = SLOT_COLLECTED;
        c->collect_seq++;
        *chunk = &s->chunk;
        return 0;
}

void dmo_codec_release(struct dmo_codec *c, struct dmo_chunk *chunk)
{
        struct slot *s = slot_of(chunk);
        bool valid = s >= c->slots && s < c->slots + c->nslots &&
                     (s->state == SLOT_COLLECTED || s->state == SLOT_ACQUIRED);

        /* An acquired chunk may go back unsubmitted (the engine had nothing
         * left to put in it). Anything else is a caller bug; ignoring it keeps
         * a double release from overflowing the free stack. */
        assert(valid);
        if (!valid)
                return;
        s->state = SLOT_FREE;
        c->free_stack[c->nfree++] = (unsigned)(s - c->slots);
}

int dmo_codec_encode_one(struct dmo_codec *c, struct dmo_chunk *chunk)
{
        return dmo_chunk_encode(&c->scratch, chunk);
}

int dmo_codec_decode_one(struct dmo_codec *c, struct dmo_chunk *chunk)
{
        return dmo_chunk_decode(&c->scratch, chunk);
}

int dmo_codec_check_stored(struct dmo_codec *c, const struct dmo_chunk *chunk,
                           const uint8_t *payload)
{
        return dmo_chunk_check_stored(&c->scratch, chunk, payload);
}

void dmo_codec_set_speed(struct dmo_codec *c, unsigned speed)
{
        atomic_store_explicit(&c->speed, speed, memory_order_relaxed);
}
