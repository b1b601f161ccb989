/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ordered tree: a B+tree of item pointers in an order the caller
 * defines (the index's ordered view: objects by URI bytes, cache.c).
 *
 * Items are opaque pointers held in leaves of up to HC_OTREE_SLOTS; inner
 * nodes hold only their children, no keys: a search compares its key with
 * the first item of a child, found by following first children down.  An
 * item costs its slot, 8 bytes, plus the share of its leaf left empty:
 *
 * - a full leaf first hands an item to a sibling with room, and splits
 *   only when neither has any; a split is in the middle, except that an
 *   item appended at the end of the whole tree starts a new leaf of its
 *   own (ascending inserts leave full leaves behind);
 * - a removal that leaves a node below HC_OTREE_MIN merges it with a
 *   sibling when both fit in one node, or takes one slot from it.
 *
 * So every node but the last of its level holds at least HC_OTREE_MIN
 * slots: at most 16.3 bytes an item, whatever the order of inserts and
 * removals.  Items that compare equal are kept in insertion order.
 *
 * The caller keeps a reserve of free nodes in the tree (hc_otree_give())
 * before an insert, at least hc_otree_reserve_needed() of them, so an
 * insert never fails; nodes that removals and hc_otree_clear() free go to
 * the reserve, and the caller takes back what it does not want to keep
 * (hc_otree_take()).
 *
 * Core code: no locks (the caller serialises), never sleeps, never allocates.
 */
#ifndef HC_OTREE_H
#define HC_OTREE_H

#include "core.h"

#define HC_OTREE_NODE_BYTES	512
#define HC_OTREE_SLOTS		((HC_OTREE_NODE_BYTES - 8) / sizeof(void *))
#define HC_OTREE_MIN		(HC_OTREE_SLOTS / 2)
/* levels: 2 x HC_OTREE_MIN^(12 - 1) items are far beyond any memory */
#define HC_OTREE_DEPTH_MAX	12

/**
 * struct hc_otree_node - a node of the tree (HC_OTREE_NODE_BYTES)
 * @nr: slots used; 0 only in the reserve
 * @level: 0 in a leaf (@slot holds items), else its height above them
 * @slot: the items of a leaf, the children of an inner node, in order;
 *	in the reserve, @slot[0] links the next free node
 */
struct hc_otree_node {
	u16 nr;
	u8 level;
	u8 reserved[5];
	void *slot[HC_OTREE_SLOTS];
};

/**
 * struct hc_otree_ops - the caller's order
 * @cmp: < 0, 0 or > 0 as @item comes before, with, or after @key (a
 *	search key, or the key of an item being inserted or removed)
 * @order: the same between two items (hc_otree_check() only)
 */
struct hc_otree_ops {
	int (*cmp)(const void *item, const void *key);
	int (*order)(const void *a, const void *b);
};

/* A place in the tree: the node and slot of each level, root first. */
struct hc_otree_pos {
	u32 depth;
	struct {
		struct hc_otree_node *node;
		u32 idx;
	} at[HC_OTREE_DEPTH_MAX];
};

/**
 * struct hc_otree - the tree
 * @root: NULL when empty
 * @ops: the order
 * @items: items in the tree
 * @nodes: nodes in the tree (not counting the reserve)
 * @depth: levels (0 when empty)
 * @spare: the reserve, linked through slot[0]
 * @nr_spare: nodes in it
 * @mod: changes so far (an insert or a removal): invalidates @hint
 * @hint_mod: @mod when @hint was taken
 * @hint: the place of the item hc_otree_first(), _ceil() or _next()
 *	returned last, so that the next step of a walk is O(1)
 */
struct hc_otree {
	struct hc_otree_node *root;
	const struct hc_otree_ops *ops;
	u64 items;
	u64 nodes;
	u32 depth;
	struct hc_otree_node *spare;
	u32 nr_spare;
	u64 mod;
	u64 hint_mod;
	struct hc_otree_pos hint;
};

void hc_otree_init(struct hc_otree *t, const struct hc_otree_ops *ops);
u32 hc_otree_reserve_needed(const struct hc_otree *t);
void hc_otree_give(struct hc_otree *t, struct hc_otree_node *node);
struct hc_otree_node *hc_otree_take(struct hc_otree *t, u32 keep);
int hc_otree_insert(struct hc_otree *t, void *item, const void *key);
int hc_otree_remove(struct hc_otree *t, const void *item, const void *key);
void *hc_otree_first(struct hc_otree *t);
void *hc_otree_ceil(struct hc_otree *t, const void *key, bool strict);
void *hc_otree_next(struct hc_otree *t, const void *item, const void *key);
void hc_otree_clear(struct hc_otree *t);
int hc_otree_check(const struct hc_otree *t, const char **why);

#endif /* HC_OTREE_H */
