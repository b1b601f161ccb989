// SPDX-License-Identifier: GPL-2.0
/*
 * Parts moved by worker threads, their CRCs folded in order: see parts.h.
 */
#include <errno.h>
#include <isa-l/crc.h>

#include "crccombine.h"
#include "parts.h"
#include "util.h"

void hc_parts_init(struct hc_parts *p, uint64_t nr, char *err, size_t errlen)
{
	*p = (struct hc_parts){ .nr = nr, .err = err, .errlen = errlen };
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->turn, NULL);
}

void hc_parts_destroy(struct hc_parts *p)
{
	pthread_cond_destroy(&p->turn);
	pthread_mutex_destroy(&p->lock);
}

int64_t hc_parts_take(struct hc_parts *p)
{
	int64_t n = -1;

	pthread_mutex_lock(&p->lock);
	if (!p->error && p->next < p->nr)
		n = (int64_t)p->next++;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void hc_parts_fail(struct hc_parts *p, int ret, const char *msg)
{
	pthread_mutex_lock(&p->lock);
	if (!p->error) {
		p->error = ret;
		hc_seterr(p->err, p->errlen, ret, "%s", msg);
	}
	pthread_cond_broadcast(&p->turn);
	pthread_mutex_unlock(&p->lock);
}

/* Fold the parts kept ahead that now follow @p->crc_part; under the lock. */
static void fold_ahead(struct hc_parts *p)
{
	for (;;) {
		unsigned int i = p->crc_part % HC_PARTS_AHEAD;

		if (!p->ahead[i].have || p->ahead[i].part != p->crc_part)
			return;
		p->crc = hc_crc32c_combine(p->crc, p->ahead[i].crc,
					   p->ahead[i].len);
		p->ahead[i].have = 0;
		p->crc_part++;
	}
}

int hc_parts_crc(struct hc_parts *p, uint64_t n, const void *buf, size_t len,
		 uint32_t *crc)
{
	uint32_t c = ~crc32_iscsi((unsigned char *)buf, (int)len, ~0U);
	unsigned int i = n % HC_PARTS_AHEAD;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	/* room ahead of the fold: the part HC_PARTS_AHEAD before it is in */
	while (!p->error && n >= p->crc_part + HC_PARTS_AHEAD)
		pthread_cond_wait(&p->turn, &p->lock);
	if (p->error) {
		ret = -ECANCELED;
		goto out;
	}
	p->ahead[i].part = n;
	p->ahead[i].len = len;
	p->ahead[i].crc = c;
	p->ahead[i].have = 1;
	fold_ahead(p);
	pthread_cond_broadcast(&p->turn);
	if (n + 1 == p->nr) {
		while (!p->error && p->crc_part < p->nr)
			pthread_cond_wait(&p->turn, &p->lock);
		if (p->error)
			ret = -ECANCELED;
		else
			*crc = p->crc;
	}
out:
	pthread_mutex_unlock(&p->lock);
	return ret;
}
