// SPDX-License-Identifier: GPL-2.0
/*
 * Parts moved by worker threads, CRC in order: see parts.h.
 */
#include <errno.h>
#include <isa-l/crc.h>

#include "parts.h"
#include "util.h"

void hc_parts_init(struct hc_parts *p, uint64_t nr, char *err, size_t errlen)
{
	*p = (struct hc_parts){ .nr = nr, .crc = ~0U, .err = err,
				.errlen = errlen };
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

int hc_parts_crc(struct hc_parts *p, uint64_t n, const void *buf, size_t len,
		 uint32_t *crc)
{
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	while (!p->error && p->crc_part != n)
		pthread_cond_wait(&p->turn, &p->lock);
	if (p->error) {
		ret = -ECANCELED;
	} else {
		p->crc = crc32_iscsi((unsigned char *)buf, (int)len, p->crc);
		p->crc_part++;
		*crc = ~p->crc;
		pthread_cond_broadcast(&p->turn);
	}
	pthread_mutex_unlock(&p->lock);
	return ret;
}
