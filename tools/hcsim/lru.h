/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Size-aware LRU: hcsim's baseline.  Entries are struct hc_policy_entry so
 * that both caches share hcsim's object type; only link, key and weight
 * are used.
 */
#ifndef HCSIM_LRU_H
#define HCSIM_LRU_H

#include "policy.h"

struct lru {
	struct hc_policy_link head;	/* next = most recently used */
	u64 capacity;
	u64 used;
};

void lru_init(struct lru *l, u64 capacity);
void lru_access(struct lru *l, struct hc_policy_entry *e);
int lru_admit(struct lru *l, struct hc_policy_entry *e,
	      struct hc_policy_entry **victims, u32 max, u32 *nr);

#endif
