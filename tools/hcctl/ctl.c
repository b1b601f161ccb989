// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - /dev/hypercache-ctl: open and the object ioctls.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hypercache.h"
#include "hcctl.h"
#include "ctl.h"

char *hcctl_uri_escape(const void *bytes, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *b = bytes;
	char *out, *p;
	size_t i;

	out = malloc(len * 4 + 1);
	if (!out)
		return NULL;
	for (p = out, i = 0; i < len; i++) {
		if (b[i] >= 0x20 && b[i] < 0x7f && b[i] != '\\') {
			*p++ = (char)b[i];
		} else {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[b[i] >> 4];
			*p++ = hex[b[i] & 15];
		}
	}
	*p = 0;
	return out;
}

int hcctl_uri_arg(const struct hcctl_cmd *cmd, const char *arg, struct hcctl_uri *uri)
{
	size_t len = strlen(arg);

	memset(uri, 0, sizeof(*uri));
	if (len == 0)
		return hcctl_usage_error(cmd, "empty URI");
	if (len > HC_URI_MAX)
		return hcctl_usage_error(cmd, "URI too long: %zu bytes (at most %d)",
				      len, HC_URI_MAX);
	uri->bytes = arg;
	uri->len = (uint32_t)len;
	uri->shown = hcctl_uri_escape(arg, len);
	if (!uri->shown) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		return HC_EXIT_FAIL;
	}
	return -1;
}

void hcctl_uri_free(struct hcctl_uri *uri)
{
	free(uri->shown);
	uri->shown = NULL;
}

int hcctl_ctl_open(const char *object, bool write)
{
	int fd;

	fd = open(HC_CTL_PATH, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	hcctl_ctl_open_report(object, write, errno);
	return -1;
}

void hcctl_ctl_open_report(const char *object, bool write, int e)
{
	if (e == ENOENT || e == ENXIO || e == ENODEV)
		hcctl_err(object, "hypercache module not loaded or no " HC_CTL_PATH,
		       e);
	else if (e == EACCES || e == EPERM)
		hcctl_err_hint(HC_CTL_PATH, "cannot open", e,
			    write ? "(needs write access to " HC_CTL_PATH ")" :
				    "(needs read access to " HC_CTL_PATH ")");
	else
		hcctl_err(HC_CTL_PATH, "cannot open", e);
}

static int do_ioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

int hcctl_ctl_locate(int fd, const struct hcctl_uri *uri, uint32_t flags,
		  struct hc_extent *ext, uint32_t max_ext,
		  struct hc_chunk_loc *layout, uint32_t max_layout,
		  struct hc_locate *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->flags = flags;
	out->uri = (uintptr_t)uri->bytes;
	out->uri_len = uri->len;
	out->extents = (uintptr_t)ext;
	out->max_extents = ext ? max_ext : 0;
	out->layout = (uintptr_t)layout;
	out->max_layout = layout ? max_layout : 0;
	return do_ioctl(fd, HC_IOC_LOCATE, out);
}

int hcctl_ctl_locate_wait(int fd, const struct hcctl_uri *uri, uint32_t flags,
		       uint32_t timeout_ms, struct hc_extent *ext,
		       uint32_t max_ext, struct hc_locate *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->flags = flags;
	out->timeout_ms = timeout_ms;
	out->uri = (uintptr_t)uri->bytes;
	out->uri_len = uri->len;
	out->extents = (uintptr_t)ext;
	out->max_extents = ext ? max_ext : 0;
	return do_ioctl(fd, HC_IOC_LOCATE, out);
}

static int obj_ref(int fd, unsigned long req, const struct hcctl_uri *uri)
{
	struct hc_obj_ref r;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.uri = (uintptr_t)uri->bytes;
	r.uri_len = uri->len;
	return do_ioctl(fd, req, &r);
}

int hcctl_ctl_release(int fd, const struct hcctl_uri *uri)
{
	return obj_ref(fd, HC_IOC_RELEASE, uri);
}

int hcctl_ctl_abort(int fd, const struct hcctl_uri *uri)
{
	return obj_ref(fd, HC_IOC_ABORT, uri);
}

int hcctl_ctl_pin(int fd, const struct hcctl_uri *uri)
{
	return obj_ref(fd, HC_IOC_PIN, uri);
}

int hcctl_ctl_unpin(int fd, const struct hcctl_uri *uri)
{
	return obj_ref(fd, HC_IOC_UNPIN, uri);
}

int hcctl_ctl_evict(int fd, const struct hcctl_uri *uri)
{
	return obj_ref(fd, HC_IOC_EVICT, uri);
}

int hcctl_ctl_stage(int fd, const struct hcctl_uri *uri, uint32_t flags,
		 uint64_t obj_size, struct hc_extent *ext, uint32_t max_ext,
		 struct hc_stage *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->flags = flags;
	out->uri = (uintptr_t)uri->bytes;
	out->uri_len = uri->len;
	out->max_extents = ext ? max_ext : 0;
	out->obj_size = obj_size;
	out->extents = (uintptr_t)ext;
	return do_ioctl(fd, HC_IOC_STAGE, out);
}

int hcctl_ctl_commit(int fd, const struct hcctl_uri *uri, uint32_t flags,
		  uint32_t crc32c, struct hc_commit *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->flags = flags;
	out->uri = (uintptr_t)uri->bytes;
	out->uri_len = uri->len;
	out->crc32c = crc32c;
	return do_ioctl(fd, HC_IOC_COMMIT, out);
}

int hcctl_ctl_stat(int fd, struct hc_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	return do_ioctl(fd, HC_IOC_STAT, out);
}

/* The errno contract of uapi/hypercache.h, per ioctl where it differs. */
static const char *ctl_reason(const char *op, int err)
{
	bool stage = !strcmp(op, "STAGE");

	switch (err) {
	case ENOTTY:
		return "the hypercache module does not know this ioctl (older module?)";
	case ENODEV:
		return "no pool is running";
	case ENOENT:
		if (!strcmp(op, "RELEASE"))
			return "this process holds no hold on the object";
		if (!strcmp(op, "ABORT") || !strcmp(op, "COMMIT"))
			return "this process has nothing staged for the object";
		return "not cached";
	case EEXIST:
		return stage ? "already cached (use --replace to overwrite)" :
			       "already exists";
	case EBUSY:
		return "the object is busy (held, staged, ingesting, pinned or being synced)";
	case ENOSPC:
		return "no room in the cache, even after evicting every evictable object";
	case EFBIG:
		return "larger than the pool";
	case EOVERFLOW:
		return "the object is held too many times (HC_HOLD_MAX by this process, or 2^30 in all)";
	case EOPNOTSUPP:
		return "the hypercache module does not know a flag (older module?)";
	case E2BIG:
		return stage ? "the object needs more extents than the kernel may return, or its URI is too long" :
			       "URI too long or argument struct too large for the kernel";
	case EBADF:
		return HC_CTL_PATH " must be open for writing";
	case EPERM:
		return "not permitted (needs CAP_SYS_ADMIN)";
	case ETIMEDOUT:
		return "timed out waiting for the object";
	case EINVAL:
		return "the kernel refused the request (empty URI or reserved field)";
	}
	return NULL;
}

void hcctl_ctl_reason(const char *op, int err, char *buf, size_t len)
{
	const char *why = ctl_reason(op, err);

	if (why)
		snprintf(buf, len, "%s", why);
	else
		snprintf(buf, len, "HC_IOC_%s failed", op);
}

void hcctl_ctl_report(const char *object, const char *op, int err)
{
	char buf[160];

	hcctl_ctl_reason(op, err, buf, sizeof(buf));
	hcctl_err(object, buf, err);
}
