// SPDX-License-Identifier: GPL-2.0
/*
 * The ordered tree (otree.h): a B+tree of item pointers with keyless inner
 * nodes.
 */
#include "otree.h"

#define HC_OTREE_PTR	sizeof(void *)

void hc_otree_init(struct hc_otree *t, const struct hc_otree_ops *ops)
{
	memset(t, 0, sizeof(*t));
	t->ops = ops;
}

/* Nodes an insert may need (every level split, and a new root). */
u32 hc_otree_reserve_needed(const struct hc_otree *t)
{
	u32 need = t->depth + 1;

	return need > t->nr_spare ? need - t->nr_spare : 0;
}

/* Add @node (HC_OTREE_NODE_BYTES, any content) to the reserve. */
void hc_otree_give(struct hc_otree *t, struct hc_otree_node *node)
{
	node->nr = 0;
	node->slot[0] = t->spare;
	t->spare = node;
	t->nr_spare++;
}

/* A node of the reserve, if it holds more than @keep; else NULL. */
struct hc_otree_node *hc_otree_take(struct hc_otree *t, u32 keep)
{
	struct hc_otree_node *node = t->spare;

	if (t->nr_spare <= keep)
		return NULL;
	t->spare = node->slot[0];
	t->nr_spare--;
	return node;
}

static struct hc_otree_node *hc_otree_node_new(struct hc_otree *t, u8 level)
{
	struct hc_otree_node *node = hc_otree_take(t, 0);

	memset(node, 0, sizeof(*node));
	node->level = level;
	t->nodes++;
	return node;
}

static void hc_otree_node_free(struct hc_otree *t, struct hc_otree_node *node)
{
	t->nodes--;
	hc_otree_give(t, node);
}

static void *hc_otree_min(const struct hc_otree_node *n)
{
	while (n->level)
		n = n->slot[0];
	return n->slot[0];
}

static void *hc_otree_item(const struct hc_otree_pos *p)
{
	return p->at[p->depth - 1].node->slot[p->at[p->depth - 1].idx];
}

/* Open a slot at @idx of @n (which has room) and put @x there. */
static void hc_otree_slot_add(struct hc_otree_node *n, u32 idx, void *x)
{
	memmove(&n->slot[idx + 1], &n->slot[idx], (n->nr - idx) * HC_OTREE_PTR);
	n->slot[idx] = x;
	n->nr++;
}

static void hc_otree_slot_del(struct hc_otree_node *n, u32 idx)
{
	memmove(&n->slot[idx], &n->slot[idx + 1],
		(n->nr - idx - 1) * HC_OTREE_PTR);
	n->nr--;
}

/*
 * The place of the first item that does not come before @key: with
 * @upper, after every item equal to @key, else before them.  The leaf's
 * slot may be one past its last (see hc_otree_settle()).
 */
static void hc_otree_descend(const struct hc_otree *t, const void *key,
			     bool upper, struct hc_otree_pos *p)
{
	struct hc_otree_node *n = t->root;

	p->depth = 0;
	while (n) {
		u32 lo = n->level ? 1 : 0, hi = n->nr;

		while (lo < hi) {
			u32 mid = lo + (hi - lo) / 2;
			const void *v = n->level ? hc_otree_min(n->slot[mid]) :
					n->slot[mid];
			int r = t->ops->cmp(v, key);

			if (r < 0 || (upper && !r))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (n->level)
			lo--;
		p->at[p->depth].node = n;
		p->at[p->depth].idx = lo;
		p->depth++;
		n = n->level ? n->slot[lo] : NULL;
	}
}

/* Move a place one past a leaf's end to the next leaf.  False: the end. */
static bool hc_otree_settle(struct hc_otree_pos *p)
{
	int l = (int)p->depth - 1;

	if (l < 0)
		return false;
	if (p->at[l].idx < p->at[l].node->nr)
		return true;
	while (--l >= 0 && p->at[l].idx + 1 >= p->at[l].node->nr)
		;
	if (l < 0)
		return false;
	p->at[l].idx++;
	for (; l + 1 < (int)p->depth; l++) {
		p->at[l + 1].node = p->at[l].node->slot[p->at[l].idx];
		p->at[l + 1].idx = 0;
	}
	return true;
}

/* The place of @item itself, among the items equal to @key. */
static bool hc_otree_find(const struct hc_otree *t, const void *item,
			  const void *key, struct hc_otree_pos *p)
{
	hc_otree_descend(t, key, false, p);
	while (hc_otree_settle(p)) {
		const void *v = hc_otree_item(p);

		if (v == item)
			return true;
		if (t->ops->cmp(v, key))
			return false;
		p->at[p->depth - 1].idx++;
	}
	return false;
}

/* Whether the node at level @l of @p is the last of its level. */
static bool hc_otree_last(const struct hc_otree_pos *p, u32 l)
{
	u32 i;

	for (i = 0; i < l; i++)
		if (p->at[i].idx + 1 != p->at[i].node->nr)
			return false;
	return true;
}

/*
 * A full leaf hands one item to a sibling with room, so that @x fits:
 * false if neither sibling has room.
 */
static bool hc_otree_spill(struct hc_otree_pos *p, void *x)
{
	u32 l = p->depth - 1, idx = p->at[l].idx, pi;
	struct hc_otree_node *n = p->at[l].node, *parent, *s;

	if (!l)
		return false;
	parent = p->at[l - 1].node;
	pi = p->at[l - 1].idx;
	s = pi > 0 ? parent->slot[pi - 1] : NULL;
	if (s && s->nr < HC_OTREE_SLOTS) {
		if (!idx) {
			s->slot[s->nr++] = x;
			return true;
		}
		s->slot[s->nr++] = n->slot[0];
		memmove(&n->slot[0], &n->slot[1], (idx - 1) * HC_OTREE_PTR);
		n->slot[idx - 1] = x;
		return true;
	}
	s = pi + 1 < parent->nr ? parent->slot[pi + 1] : NULL;
	if (s && s->nr < HC_OTREE_SLOTS) {
		if (idx == n->nr) {
			hc_otree_slot_add(s, 0, x);
			return true;
		}
		hc_otree_slot_add(s, 0, n->slot[n->nr - 1]);
		memmove(&n->slot[idx + 1], &n->slot[idx],
			(n->nr - 1 - idx) * HC_OTREE_PTR);
		n->slot[idx] = x;
		return true;
	}
	return false;
}

/* Put @x at slot @idx of level @l of @p, splitting up the path as needed. */
static void hc_otree_put(struct hc_otree *t, struct hc_otree_pos *p, u32 l,
			 u32 idx, void *x)
{
	for (;;) {
		struct hc_otree_node *n = p->at[l].node, *m, *r;
		u32 keep;

		if (n->nr < HC_OTREE_SLOTS) {
			hc_otree_slot_add(n, idx, x);
			return;
		}
		m = hc_otree_node_new(t, n->level);
		/* appended at the very end: n stays full */
		keep = idx == n->nr && hc_otree_last(p, l) ?
		       n->nr : (HC_OTREE_SLOTS + 1) / 2;
		if (idx < keep) {
			m->nr = n->nr - (keep - 1);
			memcpy(m->slot, &n->slot[keep - 1],
			       m->nr * HC_OTREE_PTR);
			n->nr = keep - 1;
			hc_otree_slot_add(n, idx, x);
		} else {
			m->nr = n->nr - keep;
			memcpy(m->slot, &n->slot[keep], m->nr * HC_OTREE_PTR);
			n->nr = keep;
			hc_otree_slot_add(m, idx - keep, x);
		}
		if (!l) {
			r = hc_otree_node_new(t, n->level + 1);
			r->slot[0] = n;
			r->slot[1] = m;
			r->nr = 2;
			t->root = r;
			t->depth++;
			return;
		}
		x = m;
		l--;
		idx = p->at[l].idx + 1;
	}
}

/**
 * hc_otree_insert - add @item, after the items equal to it
 * @t: the tree
 * @item: not NULL
 * @key: @item's key, for the order's cmp
 *
 * Return: 0, or -ENOMEM if the reserve holds fewer nodes than
 * hc_otree_reserve_needed() asked for, -E2BIG if the tree has
 * HC_OTREE_DEPTH_MAX levels and a full root (nothing changed).
 */
int hc_otree_insert(struct hc_otree *t, void *item, const void *key)
{
	struct hc_otree_pos p;
	u32 l;

	if (hc_otree_reserve_needed(t))
		return -ENOMEM;
	if (t->depth == HC_OTREE_DEPTH_MAX &&
	    t->root->nr == HC_OTREE_SLOTS)
		return -E2BIG;	/* beyond any memory: see HC_OTREE_DEPTH_MAX */
	if (!t->root) {
		t->root = hc_otree_node_new(t, 0);
		t->root->slot[0] = item;
		t->root->nr = 1;
		t->depth = 1;
	} else {
		hc_otree_descend(t, key, true, &p);
		l = p.depth - 1;
		if (p.at[l].node->nr < HC_OTREE_SLOTS || !hc_otree_spill(&p, item))
			hc_otree_put(t, &p, l, p.at[l].idx, item);
	}
	t->items++;
	t->mod++;
	return 0;
}

/* Take out the item at @p and rebalance up the path. */
static void hc_otree_cut(struct hc_otree *t, struct hc_otree_pos *p)
{
	int l = (int)p->depth - 1;

	hc_otree_slot_del(p->at[l].node, p->at[l].idx);
	for (; l > 0; l--) {
		struct hc_otree_node *n = p->at[l].node, *parent, *left, *right;
		u32 pi = p->at[l - 1].idx, ri;

		parent = p->at[l - 1].node;
		if (!n->nr) {
			hc_otree_node_free(t, n);
			hc_otree_slot_del(parent, pi);
			continue;
		}
		if (n->nr >= HC_OTREE_MIN || parent->nr == 1)
			break;
		if (pi > 0) {
			left = parent->slot[pi - 1];
			right = n;
			ri = pi;
		} else {
			left = n;
			right = parent->slot[1];
			ri = 1;
		}
		if (left->nr + right->nr <= HC_OTREE_SLOTS) {
			memcpy(&left->slot[left->nr], right->slot,
			       right->nr * HC_OTREE_PTR);
			left->nr += right->nr;
			hc_otree_node_free(t, right);
			hc_otree_slot_del(parent, ri);
			continue;
		}
		if (left == n) {
			n->slot[n->nr++] = right->slot[0];
			hc_otree_slot_del(right, 0);
		} else {
			hc_otree_slot_add(n, 0, left->slot[left->nr - 1]);
			left->nr--;
		}
		break;
	}
	while (t->root && t->root->level && t->root->nr <= 1) {
		struct hc_otree_node *r = t->root;

		t->root = r->nr ? r->slot[0] : NULL;
		hc_otree_node_free(t, r);
		t->depth--;
	}
	if (t->root && !t->root->nr) {
		hc_otree_node_free(t, t->root);
		t->root = NULL;
	}
	if (!t->root)
		t->depth = 0;
}

/**
 * hc_otree_remove - take @item out
 * @t: the tree
 * @item: the item
 * @key: its key
 *
 * Freed nodes go to the reserve.  Return: 0, or -ENOENT: @item is not in
 * the tree under @key.
 */
int hc_otree_remove(struct hc_otree *t, const void *item, const void *key)
{
	struct hc_otree_pos p;

	if (!hc_otree_find(t, item, key, &p))
		return -ENOENT;
	hc_otree_cut(t, &p);
	t->items--;
	t->mod++;
	return 0;
}

/*
 * The walks keep their place in @t->hint itself (no copy a step): valid
 * while @t->hint_mod is @t->mod.  Return: its item, or NULL (the end: the
 * hint is left invalid).
 */
static void *hc_otree_hint(struct hc_otree *t, bool found)
{
	if (!found) {
		t->hint.depth = 0;
		return NULL;
	}
	t->hint_mod = t->mod;
	return hc_otree_item(&t->hint);
}

/* The first item, or NULL. */
void *hc_otree_first(struct hc_otree *t)
{
	struct hc_otree_pos *p = &t->hint;
	struct hc_otree_node *n = t->root;

	p->depth = 0;
	while (n) {
		p->at[p->depth].node = n;
		p->at[p->depth].idx = 0;
		p->depth++;
		n = n->level ? n->slot[0] : NULL;
	}
	return hc_otree_hint(t, p->depth);
}

/* The first item not before @key (after it if @strict), or NULL. */
void *hc_otree_ceil(struct hc_otree *t, const void *key, bool strict)
{
	hc_otree_descend(t, key, strict, &t->hint);
	return hc_otree_hint(t, hc_otree_settle(&t->hint));
}

/**
 * hc_otree_next - the item after @item, or NULL
 * @t: the tree
 * @item: an item of the tree
 * @key: its key
 *
 * O(1) after the step that returned @item when nothing changed since,
 * else O(log n).  An @item no longer in the tree gives the first item after
 * @key.
 */
void *hc_otree_next(struct hc_otree *t, const void *item, const void *key)
{
	struct hc_otree_pos *p = &t->hint;

	if (!(t->hint_mod == t->mod && p->depth &&
	      p->at[p->depth - 1].idx < p->at[p->depth - 1].node->nr &&
	      hc_otree_item(p) == item) &&
	    !hc_otree_find(t, item, key, p))
		return hc_otree_ceil(t, key, true);
	p->at[p->depth - 1].idx++;
	return hc_otree_hint(t, hc_otree_settle(p));
}

static void hc_otree_clear_node(struct hc_otree *t, struct hc_otree_node *n)
{
	u32 i;

	if (n->level)
		for (i = 0; i < n->nr; i++)
			hc_otree_clear_node(t, n->slot[i]);
	hc_otree_node_free(t, n);
}

/* Empty the tree (the items are the caller's): its nodes go to the reserve. */
void hc_otree_clear(struct hc_otree *t)
{
	if (t->root)
		hc_otree_clear_node(t, t->root);
	t->root = NULL;
	t->depth = 0;
	t->items = 0;
	t->mod++;
}

struct hc_otree_walk {
	const struct hc_otree *t;
	const void *prev;
	u64 items;
	u64 nodes;
	const char *why;
};

static bool hc_otree_check_node(struct hc_otree_walk *w,
				const struct hc_otree_node *n, u32 level,
				bool root, bool last)
{
	u32 i;

	w->nodes++;
	if (n->level != level) {
		w->why = "a node's level is not one below its parent's";
		return false;
	}
	if (!n->nr || n->nr > HC_OTREE_SLOTS || (level && root && n->nr < 2)) {
		w->why = "a node's slot count is out of range";
		return false;
	}
	if (!root && !last && n->nr < HC_OTREE_MIN) {
		w->why = "a node other than its level's last is less than half full";
		return false;
	}
	for (i = 0; i < n->nr; i++) {
		if (!n->slot[i]) {
			w->why = "a slot in use is NULL";
			return false;
		}
		if (level) {
			if (!hc_otree_check_node(w, n->slot[i], level - 1,
						 false, last && i + 1 == n->nr))
				return false;
			continue;
		}
		if (w->prev && w->t->ops->order(w->prev, n->slot[i]) > 0) {
			w->why = "two items are out of order";
			return false;
		}
		w->prev = n->slot[i];
		w->items++;
	}
	return true;
}

/**
 * hc_otree_check - verify the tree's structure and order
 * @t: the tree
 * @why: set to the first problem found
 *
 * O(n).  Return: 0, or -EUCLEAN.
 */
int hc_otree_check(const struct hc_otree *t, const char **why)
{
	struct hc_otree_walk w = { .t = t };
	const struct hc_otree_node *s;
	u32 spare = 0;

	*why = NULL;
	for (s = t->spare; s && spare <= t->nr_spare; s = s->slot[0])
		spare++;
	if (spare != t->nr_spare) {
		*why = "the reserve's count is wrong";
		return -EUCLEAN;
	}
	if (!t->root) {
		if (t->items || t->nodes || t->depth) {
			*why = "an empty tree counts items, nodes or levels";
			return -EUCLEAN;
		}
		return 0;
	}
	if (t->depth != t->root->level + 1u || t->depth > HC_OTREE_DEPTH_MAX) {
		*why = "the depth is not the root's level + 1";
		return -EUCLEAN;
	}
	if (!hc_otree_check_node(&w, t->root, t->root->level, true, true)) {
		*why = w.why;
		return -EUCLEAN;
	}
	if (w.items != t->items || w.nodes != t->nodes) {
		*why = "the item or node count is wrong";
		return -EUCLEAN;
	}
	return 0;
}
