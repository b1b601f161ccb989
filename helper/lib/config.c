// SPDX-License-Identifier: GPL-2.0
/*
 * hypercached's configuration file (INI, parsed by libinih).  See config.h
 * and Documentation/hypercached.conf.md.
 *
 * libinih calls our reader for every line and our handler for every
 * "key = value".  The reader counts lines (so messages carry them), refuses
 * over-long and indented lines, and opens sections: it sees every header,
 * also of sections without keys, which inih never reports.  A section is
 * checked as a whole (required keys, keys of the other backend type) when
 * the next header or the end of the text closes it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ini.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "util.h"

#define HC_MAIN_SECTION	"hypercached"
#define HC_BACKEND_WORD	"backend"

static pthread_once_t hc_ini_once = PTHREAD_ONCE_INIT;

/* Debian's libinih makes its line limit a run-time, process-wide setting. */
static void hc_ini_setup(void)
{
	if (ini_max_line < HC_INI_MAX_LINE)
		ini_max_line = HC_INI_MAX_LINE;
}

static void hc_ini_init(void)
{
	pthread_once(&hc_ini_once, hc_ini_setup);
}

/* ---------------------------------------------------------------------- */
/* Line reader over a buffer: counts lines, refuses what inih would misread */

struct hc_reader {
	const char *pos, *end;
	int line;
	int (*header)(void *ctx, const char *name, size_t len);
	void (*eof)(void *ctx);
	int (*fail)(void *ctx, const char *fmt, ...);
	void *ctx;
	bool lenient;		/* indented lines allowed (AWS files) */
	bool stopped;
};

static bool hc_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* fgets() for ini_parse_stream(): one line into @str (@num bytes). */
static char *hc_read_line(char *str, int num, void *stream)
{
	struct hc_reader *r = stream;
	const char *nl, *s, *close;
	size_t len;

	if (r->stopped)
		return NULL;
	if (r->pos >= r->end) {
		r->stopped = true;
		if (r->eof)
			r->eof(r->ctx);
		return NULL;
	}
	r->line++;
	nl = memchr(r->pos, '\n', (size_t)(r->end - r->pos));
	len = nl ? (size_t)(nl - r->pos) + 1 : (size_t)(r->end - r->pos);
	if (memchr(r->pos, '\0', len))
		goto fail_nul;
	if (len + 1 > (size_t)num)
		goto fail_long;
	memcpy(str, r->pos, len);
	str[len] = '\0';
	r->pos += len;

	for (s = str; hc_blank(*s); s++)
		;
	if (*s == '\0' || *s == '\n' || *s == ';' || *s == '#')
		return str;		/* blank or comment */
	if (s > str && !r->lenient)
		goto fail_indent;
	if (*s == '[' && r->header) {
		close = strchr(s, ']');
		if (!close)
			goto fail_header;
		if (r->header(r->ctx, s + 1, (size_t)(close - s - 1)))
			goto stop;
	}
	return str;

fail_nul:
	r->fail(r->ctx, "NUL byte in the line");
	goto stop;
fail_long:
	r->fail(r->ctx, "line longer than %d bytes", num - 2);
	goto stop;
fail_indent:
	r->fail(r->ctx, "indented line (keys and sections start in column 1; values do not continue over lines)");
	goto stop;
fail_header:
	r->fail(r->ctx, "section header without ']'");
stop:
	r->stopped = true;
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Parser state */

enum hc_section {
	HC_SEC_NONE,		/* before the first header */
	HC_SEC_MAIN,
	HC_SEC_BACKEND,
};

enum hc_main_key {
	HC_K_LOG_LEVEL,
	HC_K_INGEST_CONCURRENCY,
	HC_K_PART_SIZE,
	HC_K_MAX_OBJECTS,
	HC_K_TIMEOUT_CONNECT,
	HC_K_TIMEOUT_REQUEST,
	HC_K_RETRY_ATTEMPTS,
	HC_K_METRICS_LISTEN,
	HC_K_DEFAULT_BACKEND,
	HC_K_BUFFER_BUDGET,
	HC_K_EGRESS_PRICE,
	HC_K_NUMA,
	HC_K_MAIN_NR,
};

enum hc_backend_key {
	HC_B_TYPE,
	HC_B_ENDPOINT,
	HC_B_REGION,
	HC_B_ADDRESSING,
	HC_B_ACCESS_KEY,
	HC_B_SECRET_KEY,
	HC_B_CA_FILE,
	HC_B_ROOT,
	HC_B_ANONYMOUS,
	HC_B_SIGN_PAYLOAD,
	HC_B_PROCESS_TIMEOUT,
	HC_B_REVALIDATE,
	HC_B_NR,
};

struct hc_parse {
	struct hc_config *cfg;
	const char *file;
	struct hc_reader rd;
	enum hc_section sec;
	char sec_name[HC_INI_MAX_LINE];		/* as written, for messages */
	int sec_line;
	struct hc_backend *bk;
	int main_line[HC_K_MAIN_NR];		/* where each key was set */
	int bk_line[HC_B_NR];
	const char *key;			/* being set, for messages */
	int err_line;				/* 0: no error yet */
	int rc;
	char *err;
	size_t errlen;
};

/* Record the first error: "FILE:LINE: [SECTION] KEY: message". */
static int hc_vfail(struct hc_parse *p, int line, const char *key,
		    const char *fmt, va_list ap)
{
	size_t n = 0;
	int w;

	if (p->err_line)
		return p->rc;
	p->err_line = line;
	p->rc = -EINVAL;
	if (!p->err || !p->errlen)
		return p->rc;
	w = snprintf(p->err, p->errlen, "%s:%d: ", p->file, line);
	if (w > 0)
		n = (size_t)w;
	if (n < p->errlen && p->sec != HC_SEC_NONE) {
		w = snprintf(p->err + n, p->errlen - n, "[%s]%s%s: ",
			     p->sec_name, key ? " " : "", key ? key : "");
		if (w > 0)
			n += (size_t)w;
	} else if (n < p->errlen && key) {
		w = snprintf(p->err + n, p->errlen - n, "%s: ", key);
		if (w > 0)
			n += (size_t)w;
	}
	if (n < p->errlen)
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	return p->rc;
}

/* An error about the key being set, on the current line. */
static int hc_kfail(struct hc_parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hc_vfail(p, p->rd.line, p->key, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An error about the section as a whole, or a key set at @line. */
static int hc_sfail(struct hc_parse *p, int line, const char *key,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	hc_vfail(p, line, key, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The reader's failures: the line itself is wrong, no section named. */
static int hc_rfail(void *ctx, const char *fmt, ...)
{
	struct hc_parse *p = ctx;
	va_list ap;

	p->sec = HC_SEC_NONE;
	va_start(ap, fmt);
	hc_vfail(p, p->rd.line, NULL, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ---------------------------------------------------------------------- */
/* Values */

static int hc_copy(struct hc_parse *p, char *dst, size_t size, const char *v)
{
	size_t len = strlen(v);

	if (len == 0)
		return hc_kfail(p, "empty value");
	if (len >= size)
		return hc_kfail(p, "longer than %zu bytes", size - 1);
	memcpy(dst, v, len + 1);
	return 0;
}

/* Decimal digits only: no sign, no spaces, no 0x. */
static int hc_digits(const char *v, uint64_t *out, const char **end)
{
	uint64_t n = 0;
	const char *s = v;
	int rc = 0;

	*end = v;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (UINT64_MAX - 9) / 10)
			rc = -ERANGE;
		else
			n = n * 10 + (uint64_t)(*s - '0');
	}
	*out = n;
	*end = s;
	return rc;
}

static int hc_uint(struct hc_parse *p, const char *v, unsigned int min,
		   unsigned int max, unsigned int *out)
{
	const char *end;
	uint64_t n;
	int rc;

	rc = hc_digits(v, &n, &end);
	if (rc == -EINVAL || *end)
		return hc_kfail(p, "expected a decimal number, got \"%s\"", v);
	if (rc || n < min || n > max)
		return hc_kfail(p, "%s out of range %u..%u", v, min, max);
	*out = (unsigned int)n;
	return 0;
}

#define HC_KIB	1024ULL
#define HC_MIB	(1024ULL * HC_KIB)
#define HC_GIB	(1024ULL * HC_MIB)

/* Bytes, with an optional K, M or G (binary) suffix. */
static int hc_size(struct hc_parse *p, const char *v, uint64_t min,
		   uint64_t max, uint64_t align, const char *range,
		   uint64_t *out)
{
	uint64_t n, mult = 1;
	const char *end;
	int rc;

	rc = hc_digits(v, &n, &end);
	if (rc == -EINVAL)
		goto bad;
	switch (*end) {
	case '\0':
		break;
	case 'K': case 'k':
		mult = HC_KIB;
		end++;
		break;
	case 'M': case 'm':
		mult = HC_MIB;
		end++;
		break;
	case 'G': case 'g':
		mult = HC_GIB;
		end++;
		break;
	default:
		goto bad;
	}
	if (*end)
		goto bad;
	if (rc || n > max / mult || n * mult < min)
		return hc_kfail(p, "%s out of range %s", v, range);
	n *= mult;
	if (n % align)
		return hc_kfail(p, "%s is not a multiple of %llu bytes", v,
				(unsigned long long)align);
	*out = n;
	return 0;
bad:
	return hc_kfail(p, "expected bytes with an optional K, M or G suffix, got \"%s\"",
			v);
}

/* One of @words (NULL-terminated); its index in *@out. */
static int hc_enum(struct hc_parse *p, const char *v,
		   const char *const *words, const char *expect, int *out)
{
	int i;

	for (i = 0; words[i]; i++) {
		if (!strcmp(v, words[i])) {
			*out = i;
			return 0;
		}
	}
	return hc_kfail(p, "expected %s, got \"%s\"", expect, v);
}

/* A backend name: 1..63 of a-z 0-9 _ -, starting with a-z or 0-9 (uri.h). */
static const char *hc_name_problem(const char *n, size_t len)
{
	size_t i;

	if (len == 0)
		return "empty";
	if (len > HC_NAME_MAX)
		return "longer than 63 characters";
	for (i = 0; i < len; i++) {
		char c = n[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (!alnum && (i == 0 || (c != '_' && c != '-')))
			return "expected a-z 0-9 _ - starting with a-z or 0-9";
	}
	return NULL;
}

static bool hc_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

/* A price in dollars: a decimal number, 0..1000000 (no sign, no exponent). */
static int hc_price(struct hc_parse *p, const char *v, double *out)
{
	const char *s = v;
	char *end;
	double d;

	for (; *s; s++)
		if ((*s < '0' || *s > '9') && *s != '.')
			goto bad;
	errno = 0;
	d = strtod(v, &end);
	if (!*v || *end || errno || d > 1e6)
		goto bad;
	*out = d;
	return 0;
bad:
	return hc_kfail(p, "expected a price in dollars per GB (0..1000000, e.g. 0.09), got \"%s\"", v);
}

/* HOST:PORT with HOST a name or IPv4 address, or [IPV6]:PORT. */
static int hc_listen(struct hc_parse *p, const char *v)
{
	struct hc_config *cfg = p->cfg;
	struct in6_addr a6;
	const char *host = v, *colon, *end;
	size_t hlen;
	uint64_t port;
	size_t i;

	if (strlen(v) > HC_LISTEN_MAX)
		goto bad;
	if (*v == '[') {
		host = v + 1;
		end = strchr(host, ']');
		if (!end || end[1] != ':')
			goto bad;
		colon = end + 1;
		hlen = (size_t)(end - host);
		if (hlen > HC_HOST_MAX)
			goto bad;
		memcpy(cfg->metrics_host, host, hlen);
		cfg->metrics_host[hlen] = '\0';
		if (inet_pton(AF_INET6, cfg->metrics_host, &a6) != 1)
			return hc_kfail(p, "\"%s\" is not an IPv6 address",
					cfg->metrics_host);
	} else {
		colon = strrchr(v, ':');
		if (!colon || colon == v)
			goto bad;
		if (memchr(v, ':', (size_t)(colon - v)))
			return hc_kfail(p, "IPv6 addresses go in brackets: [ADDR]:PORT, got \"%s\"",
					v);
		hlen = (size_t)(colon - v);
		if (hlen > HC_HOST_MAX)
			goto bad;
		for (i = 0; i < hlen; i++)
			if (!hc_host_char(v[i]))
				goto bad;
		memcpy(cfg->metrics_host, v, hlen);
		cfg->metrics_host[hlen] = '\0';
	}
	if (hlen == 0 || hc_digits(colon + 1, &port, &end) || *end)
		goto bad;
	if (port < 1 || port > 65535)
		return hc_kfail(p, "port %s out of range 1..65535", colon + 1);
	cfg->metrics_port = (uint16_t)port;
	memcpy(cfg->metrics_listen, v, strlen(v) + 1);
	return 0;
bad:
	return hc_kfail(p, "expected HOST:PORT or [IPV6]:PORT, got \"%s\"", v);
}

const char *hc_config_url_problem(const char *v)
{
	const char *host;

	if (!strncmp(v, "https://", 8))
		host = v + 8;
	else if (!strncmp(v, "http://", 7))
		host = v + 7;
	else
		return "expected an http:// or https:// URL, got";
	if (!hc_host_char(*host) && *host != '[')
		return "no host in";
	if (strpbrk(v, " \t"))
		return "spaces in";
	return NULL;
}

static int hc_url(struct hc_parse *p, char *dst, size_t size, const char *v)
{
	const char *why = hc_config_url_problem(v);

	if (why)
		return hc_kfail(p, "%s \"%s\"", why, v);
	return hc_copy(p, dst, size, v);
}

/* ---------------------------------------------------------------------- */
/* [hypercached] */

static const char *const hc_main_keys[HC_K_MAIN_NR] = {
	[HC_K_LOG_LEVEL]		= "log_level",
	[HC_K_INGEST_CONCURRENCY]	= "ingest_concurrency",
	[HC_K_PART_SIZE]		= "part_size",
	[HC_K_MAX_OBJECTS]		= "max_objects_in_flight",
	[HC_K_TIMEOUT_CONNECT]		= "timeout_connect",
	[HC_K_TIMEOUT_REQUEST]		= "timeout_request",
	[HC_K_RETRY_ATTEMPTS]		= "retry_attempts",
	[HC_K_METRICS_LISTEN]		= "metrics_listen",
	[HC_K_DEFAULT_BACKEND]		= "default_backend",
	[HC_K_BUFFER_BUDGET]		= "buffer_budget",
	[HC_K_EGRESS_PRICE]		= "egress_price_per_gb",
	[HC_K_NUMA]			= "numa",
};

static const char *const hc_numa_words[] = { "auto", "off", NULL };

static const char *const hc_log_words[] = {
	"error", "warn", "info", "debug", NULL
};

static int hc_main_set(struct hc_parse *p, int k, const char *v)
{
	struct hc_config *cfg = p->cfg;
	const char *why;
	int i = 0, rc;

	switch (k) {
	case HC_K_LOG_LEVEL:
		rc = hc_enum(p, v, hc_log_words, "error, warn, info or debug", &i);
		if (!rc)
			cfg->log_level = (enum hc_log_level)i;
		return rc;
	case HC_K_INGEST_CONCURRENCY:
		return hc_uint(p, v, 1, 64, &cfg->ingest_concurrency);
	case HC_K_PART_SIZE:
		return hc_size(p, v, HC_MIB, HC_GIB, 4096, "1M..1G",
			       &cfg->part_size);
	case HC_K_MAX_OBJECTS:
		return hc_uint(p, v, 1, 256, &cfg->max_objects_in_flight);
	case HC_K_TIMEOUT_CONNECT:
		return hc_uint(p, v, 1, 3600, &cfg->timeout_connect);
	case HC_K_TIMEOUT_REQUEST:
		return hc_uint(p, v, 1, 86400, &cfg->timeout_request);
	case HC_K_RETRY_ATTEMPTS:
		return hc_uint(p, v, 1, 100, &cfg->retry_attempts);
	case HC_K_METRICS_LISTEN:
		return hc_listen(p, v);
	case HC_K_DEFAULT_BACKEND:
		why = hc_name_problem(v, strlen(v));
		if (why)
			return hc_kfail(p, "backend name \"%s\": %s", v, why);
		return hc_copy(p, cfg->default_backend,
			       sizeof(cfg->default_backend), v);
	case HC_K_BUFFER_BUDGET:
		return hc_size(p, v, HC_MIB, 64 * HC_GIB, 4096, "1M..64G",
			       &cfg->buffer_budget);
	case HC_K_EGRESS_PRICE:
		return hc_price(p, v, &cfg->egress_price_per_gb);
	case HC_K_NUMA:
		rc = hc_enum(p, v, hc_numa_words, "auto or off", &i);
		if (!rc)
			cfg->numa = (enum hc_numa_mode)i;
		return rc;
	}
	return -EINVAL;
}

/* ---------------------------------------------------------------------- */
/* [backend NAME] */

static const char *const hc_backend_keys[HC_B_NR] = {
	[HC_B_TYPE]		= "type",
	[HC_B_ENDPOINT]		= "endpoint",
	[HC_B_REGION]		= "region",
	[HC_B_ADDRESSING]	= "addressing",
	[HC_B_ACCESS_KEY]	= "access_key",
	[HC_B_SECRET_KEY]	= "secret_key",
	[HC_B_CA_FILE]		= "ca_file",
	[HC_B_ROOT]		= "root",
	[HC_B_ANONYMOUS]	= "anonymous",
	[HC_B_SIGN_PAYLOAD]	= "sign_payload",
	[HC_B_PROCESS_TIMEOUT]	= "credential_process_timeout",
	[HC_B_REVALIDATE]	= "revalidate",
};

/* Which type each key belongs to (NONE: both). */
static const enum hc_backend_type hc_backend_key_type[HC_B_NR] = {
	[HC_B_TYPE]		= HC_BACKEND_NONE,
	[HC_B_ENDPOINT]		= HC_BACKEND_S3,
	[HC_B_REGION]		= HC_BACKEND_S3,
	[HC_B_ADDRESSING]	= HC_BACKEND_S3,
	[HC_B_ACCESS_KEY]	= HC_BACKEND_S3,
	[HC_B_SECRET_KEY]	= HC_BACKEND_S3,
	[HC_B_CA_FILE]		= HC_BACKEND_S3,
	[HC_B_ROOT]		= HC_BACKEND_POSIX,
	[HC_B_ANONYMOUS]	= HC_BACKEND_S3,
	[HC_B_SIGN_PAYLOAD]	= HC_BACKEND_S3,
	[HC_B_PROCESS_TIMEOUT]	= HC_BACKEND_S3,
	[HC_B_REVALIDATE]	= HC_BACKEND_NONE,
};

static const char *const hc_type_words[] = { "", "s3", "posix", NULL };
static const char *const hc_addr_words[] = { "path", "virtual", NULL };
static const char *const hc_bool_words[] = { "false", "true", NULL };

static int hc_region(struct hc_parse *p, struct hc_backend *b, const char *v)
{
	const char *s;

	for (s = v; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-'))
			return hc_kfail(p, "expected a-z 0-9 -, got \"%s\"", v);
	return hc_copy(p, b->region, sizeof(b->region), v);
}

/* revalidate = never | on-open-after SECONDS | always */
static int hc_revalidate(struct hc_parse *p, struct hc_backend *b,
			 const char *v)
{
	static const char after[] = "on-open-after";
	const size_t alen = sizeof(after) - 1;

	b->revalidate_after = 0;
	if (!strcmp(v, "never")) {
		b->revalidate = HC_REVALIDATE_NEVER;
		return 0;
	}
	if (!strcmp(v, "always")) {
		b->revalidate = HC_REVALIDATE_ALWAYS;
		return 0;
	}
	if (strncmp(v, after, alen) || (v[alen] != ' ' && v[alen] != '\t'))
		return hc_kfail(p, "expected never, on-open-after SECONDS or always, got \"%s\"",
				v);
	v += alen;
	while (*v == ' ' || *v == '\t')
		v++;
	b->revalidate = HC_REVALIDATE_AFTER;
	return hc_uint(p, v, 1, HC_REVALIDATE_AFTER_MAX, &b->revalidate_after);
}

static int hc_backend_set(struct hc_parse *p, int k, const char *v)
{
	struct hc_backend *b = p->bk;
	int i = 0, rc;

	switch (k) {
	case HC_B_TYPE:
		rc = hc_enum(p, v, hc_type_words + 1, "s3 or posix", &i);
		if (!rc)
			b->type = (enum hc_backend_type)(i + 1);
		return rc;
	case HC_B_ENDPOINT:
		return hc_url(p, b->endpoint, sizeof(b->endpoint), v);
	case HC_B_REGION:
		b->region_set = true;
		return hc_region(p, b, v);
	case HC_B_ANONYMOUS:
		rc = hc_enum(p, v, hc_bool_words, "true or false", &i);
		if (!rc)
			b->anonymous = i;
		return rc;
	case HC_B_SIGN_PAYLOAD:
		rc = hc_enum(p, v, hc_bool_words, "true or false", &i);
		if (!rc)
			b->sign_payload = i;
		return rc;
	case HC_B_ADDRESSING:
		rc = hc_enum(p, v, hc_addr_words, "path or virtual", &i);
		if (!rc)
			b->addressing = (enum hc_addressing)i;
		return rc;
	case HC_B_ACCESS_KEY:
		return hc_copy(p, b->access_key, sizeof(b->access_key), v);
	case HC_B_SECRET_KEY:
		return hc_copy(p, b->secret_key, sizeof(b->secret_key), v);
	case HC_B_CA_FILE:
		return hc_copy(p, b->ca_file, sizeof(b->ca_file), v);
	case HC_B_PROCESS_TIMEOUT:
		return hc_uint(p, v, 1, 3600, &b->process_timeout);
	case HC_B_REVALIDATE:
		return hc_revalidate(p, b, v);
	case HC_B_ROOT:
		if (v[0] != '/')
			return hc_kfail(p, "expected an absolute path, got \"%s\"", v);
		return hc_copy(p, b->root, sizeof(b->root), v);
	}
	return -EINVAL;
}

/* A closed [backend NAME]: the type's keys, and only those. */
static int hc_backend_check(struct hc_parse *p)
{
	struct hc_backend *b = p->bk;
	int k;

	if (b->type == HC_BACKEND_NONE)
		return hc_sfail(p, p->sec_line, NULL,
				"missing required key \"type\" (s3 or posix)");
	for (k = 0; k < HC_B_NR; k++)
		if (p->bk_line[k] && hc_backend_key_type[k] != HC_BACKEND_NONE &&
		    hc_backend_key_type[k] != b->type)
			return hc_sfail(p, p->bk_line[k], hc_backend_keys[k],
					"not a key of %s backend",
					b->type == HC_BACKEND_S3 ? "an s3" : "a posix");
	if (b->type == HC_BACKEND_S3) {
		if (b->anonymous && p->bk_line[HC_B_ACCESS_KEY])
			return hc_sfail(p, p->bk_line[HC_B_ANONYMOUS], "anonymous",
					"true with access_key: unsigned requests carry no key");
		if (!p->bk_line[HC_B_ACCESS_KEY] != !p->bk_line[HC_B_SECRET_KEY]) {
			k = p->bk_line[HC_B_ACCESS_KEY] ? HC_B_ACCESS_KEY
							: HC_B_SECRET_KEY;
			return hc_sfail(p, p->bk_line[k], hc_backend_keys[k],
					"given without %s",
					hc_backend_keys[k == HC_B_ACCESS_KEY ?
							HC_B_SECRET_KEY :
							HC_B_ACCESS_KEY]);
		}
	} else if (!p->bk_line[HC_B_ROOT]) {
		return hc_sfail(p, p->sec_line, NULL,
				"missing required key \"root\"");
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Sections and keys */

static int hc_section_close(struct hc_parse *p)
{
	int rc = 0;

	if (p->sec == HC_SEC_BACKEND && !p->err_line)
		rc = hc_backend_check(p);
	p->sec = HC_SEC_NONE;
	p->bk = NULL;
	return rc;
}

static void hc_on_eof(void *ctx)
{
	hc_section_close(ctx);
}

/* The reader met "[name]" (@name not NUL-terminated). */
static int hc_on_header(void *ctx, const char *name, size_t len)
{
	struct hc_parse *p = ctx;
	struct hc_config *cfg = p->cfg;
	const size_t wlen = sizeof(HC_BACKEND_WORD) - 1;
	struct hc_backend *b;
	const char *bname, *why;
	size_t blen;
	unsigned int i;

	if (hc_section_close(p))
		return -EINVAL;
	if (len >= sizeof(p->sec_name))
		return hc_rfail(p, "section name longer than %zu bytes",
				sizeof(p->sec_name) - 1);
	p->sec = HC_SEC_MAIN;	/* for messages, until it is known */
	memcpy(p->sec_name, name, len);
	p->sec_name[len] = '\0';
	p->sec_line = p->rd.line;

	if (!strcmp(p->sec_name, HC_MAIN_SECTION))
		return 0;
	if (len <= wlen || memcmp(name, HC_BACKEND_WORD, wlen) ||
	    name[wlen] != ' ')
		return hc_sfail(p, p->sec_line, NULL,
				"unknown section (expected [hypercached] or [backend NAME])");

	bname = name + wlen + 1;
	blen = len - wlen - 1;
	why = hc_name_problem(bname, blen);
	if (why)
		return hc_sfail(p, p->sec_line, NULL, "backend name: %s", why);
	for (i = 0; i < cfg->nr_backends; i++)
		if (strlen(cfg->backends[i].name) == blen &&
		    !memcmp(cfg->backends[i].name, bname, blen))
			return hc_sfail(p, p->sec_line, NULL,
					"duplicate backend (first at line %u)",
					cfg->backends[i].line);
	if (cfg->nr_backends == HC_BACKENDS_MAX)
		return hc_sfail(p, p->sec_line, NULL,
				"more than %d backends", HC_BACKENDS_MAX);

	b = &cfg->backends[cfg->nr_backends++];
	memset(b, 0, sizeof(*b));
	memcpy(b->name, bname, blen);
	b->name[blen] = '\0';
	b->line = (unsigned int)p->sec_line;
	b->type = HC_BACKEND_NONE;
	b->addressing = HC_ADDR_PATH;
	strcpy(b->region, "us-east-1");
	b->process_timeout = HC_PROCESS_TIMEOUT_DEFAULT;
	memset(p->bk_line, 0, sizeof(p->bk_line));
	p->sec = HC_SEC_BACKEND;
	p->bk = b;
	return 0;
}

static int hc_find(const char *const *names, int nr, const char *key)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], key))
			return i;
	return -1;
}

/* inih's handler: nonzero on success.  @section is ours (p->sec). */
static int hc_on_key(void *user, const char *section, const char *name,
		     const char *value)
{
	struct hc_parse *p = user;
	int *lines, k;

	(void)section;	/* inih truncates long names; the reader's is whole */
	if (p->err_line)
		return 0;
	p->key = name;
	if (p->sec == HC_SEC_NONE) {
		hc_kfail(p, "key outside a section");
		goto out;
	}
	if (p->sec == HC_SEC_MAIN) {
		k = hc_find(hc_main_keys, HC_K_MAIN_NR, name);
		lines = p->main_line;
	} else {
		k = hc_find(hc_backend_keys, HC_B_NR, name);
		lines = p->bk_line;
	}
	if (k < 0) {
		hc_kfail(p, "unknown key");
		goto out;
	}
	if (lines[k]) {
		hc_kfail(p, "given twice (first at line %d)", lines[k]);
		goto out;
	}
	lines[k] = p->rd.line;
	if (p->sec == HC_SEC_MAIN)
		hc_main_set(p, k, value);
	else
		hc_backend_set(p, k, value);
out:
	p->key = NULL;
	return !p->err_line;
}

/* After the last section: what depends on more than one section. */
static int hc_config_check(struct hc_parse *p)
{
	struct hc_config *cfg = p->cfg;
	const struct hc_backend *b;
	int line = p->main_line[HC_K_DEFAULT_BACKEND];

	/* the default budget grows to one part; a budget given must hold one */
	if (!p->main_line[HC_K_BUFFER_BUDGET] &&
	    cfg->buffer_budget < cfg->part_size)
		cfg->buffer_budget = cfg->part_size;
	if (cfg->buffer_budget < cfg->part_size) {
		int at = p->main_line[HC_K_BUFFER_BUDGET];

		p->sec = HC_SEC_MAIN;
		strcpy(p->sec_name, HC_MAIN_SECTION);
		return hc_sfail(p, at, hc_main_keys[HC_K_BUFFER_BUDGET],
				"%llu bytes is less than part_size (%llu): "
				"not one part would fit",
				(unsigned long long)cfg->buffer_budget,
				(unsigned long long)cfg->part_size);
	}
	if (!line)
		return 0;	/* implicit "s3": s3:// works iff [backend s3] */
	p->sec = HC_SEC_MAIN;
	strcpy(p->sec_name, HC_MAIN_SECTION);
	b = hc_config_backend(cfg, cfg->default_backend);
	if (!b)
		return hc_sfail(p, line, hc_main_keys[HC_K_DEFAULT_BACKEND],
				"no [backend %s] section", cfg->default_backend);
	if (b->type != HC_BACKEND_S3)
		return hc_sfail(p, line, hc_main_keys[HC_K_DEFAULT_BACKEND],
				"backend %s is not of type s3", b->name);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Entry points */

void hc_config_defaults(struct hc_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->log_level = HC_LOG_INFO;
	cfg->numa = HC_NUMA_AUTO;
	cfg->ingest_concurrency = 8;
	cfg->part_size = 8 * HC_MIB;
	cfg->max_objects_in_flight = 4;
	cfg->timeout_connect = 10;
	cfg->timeout_request = 300;
	cfg->retry_attempts = 5;
	strcpy(cfg->metrics_listen, "127.0.0.1:9110");
	cfg->egress_price_per_gb = 0.09;
	strcpy(cfg->metrics_host, "127.0.0.1");
	cfg->metrics_port = 9110;
	strcpy(cfg->default_backend, "s3");
	cfg->buffer_budget = 256 * HC_MIB;
}

/* @len bytes at @text; a NUL among them is an error naming its line. */
static int hc_config_parse_buf(const char *text, size_t len, const char *name,
			       struct hc_config *cfg, char *err, size_t errlen)
{
	struct hc_parse *p;
	int line, rc;

	if (err && errlen)
		err[0] = '\0';
	hc_ini_init();
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	hc_config_defaults(cfg);
	p->cfg = cfg;
	p->file = name ? name : "<config>";
	p->err = err;
	p->errlen = errlen;
	p->rd.pos = text;
	p->rd.end = text + len;
	p->rd.header = hc_on_header;
	p->rd.eof = hc_on_eof;
	p->rd.fail = hc_rfail;
	p->rd.ctx = p;

	line = ini_parse_stream(hc_read_line, &p->rd, hc_on_key, p);
	if (line == -2) {
		rc = -ENOMEM;
		goto out;
	}
	if (line > 0 && (!p->err_line || line < p->err_line)) {
		/* inih refused the line itself (no '=', bad header). */
		p->err_line = 0;
		p->sec = HC_SEC_NONE;
		hc_sfail(p, line, NULL,
			 "syntax error (expected [SECTION], KEY = VALUE or a comment)");
	}
	if (!p->err_line)
		hc_config_check(p);
	rc = p->err_line ? p->rc : 0;
out:
	free(p);
	return rc;
}

int hc_config_parse(const char *text, const char *name, struct hc_config *cfg,
		    char *err, size_t errlen)
{
	return hc_config_parse_buf(text, strlen(text), name, cfg, err, errlen);
}

/* The whole of @path (*@len bytes, NUL-terminated), at most HC_CONFIG_FILE_MAX bytes. */
static int hc_slurp(const char *path, char **out, size_t *len,
		    char *err, size_t errlen)
{
	char *buf;
	size_t n;
	FILE *f;
	int rc;

	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		goto fail;
	}
	buf = malloc(HC_CONFIG_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, HC_CONFIG_FILE_MAX + 1, f);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!rc && n > HC_CONFIG_FILE_MAX)
		rc = -EFBIG;
	if (rc) {
		free(buf);
		goto fail;
	}
	buf[n] = '\0';
	*len = n;
	*out = buf;
	return 0;
fail:
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path,
			 rc == -EFBIG ? "larger than 1 MiB" : strerror(-rc));
	return rc;
}

int hc_config_load(const char *path, struct hc_config *cfg,
		   char *err, size_t errlen)
{
	size_t len;
	char *text;
	int rc;

	if (!path)
		path = HC_CONFIG_PATH;
	rc = hc_slurp(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	rc = hc_config_parse_buf(text, len, path, cfg, err, errlen);
	free(text);
	return rc;
}

const struct hc_backend *hc_config_backend(const struct hc_config *cfg,
					   const char *name)
{
	unsigned int i;

	for (i = 0; i < cfg->nr_backends; i++)
		if (!strcmp(cfg->backends[i].name, name))
			return &cfg->backends[i];
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* AWS-style INI files (the credential chain's ~/.aws/credentials, config) */

struct hc_ini_lenient_ctx {
	struct hc_reader rd;
	int bad_line;
};

static int hc_ini_lenient_fail(void *ctx, const char *fmt, ...)
{
	struct hc_ini_lenient_ctx *c = ctx;

	(void)fmt;	/* reported as "unreadable line" */
	if (!c->bad_line)
		c->bad_line = c->rd.line;
	return -EINVAL;
}

int hc_ini_file(const char *path, hc_ini_handler fn, void *user,
		char *err, size_t errlen)
{
	struct hc_ini_lenient_ctx c = { 0 };
	size_t len;
	char *text;
	int line, rc;

	hc_ini_init();
	rc = hc_slurp(path, &text, &len, err, errlen);
	if (rc)
		return rc;
	c.rd.pos = text;
	c.rd.end = text + len;
	c.rd.fail = hc_ini_lenient_fail;
	c.rd.ctx = &c;
	c.rd.lenient = true;
	line = ini_parse_stream(hc_read_line, &c.rd, fn, user);
	free(text);
	if (line == -2)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	if (c.bad_line && (line <= 0 || c.bad_line <= line))
		return hc_seterr(err, errlen, -EINVAL,
				 "%s:%d: unreadable line (NUL byte or too long)",
				 path, c.bad_line);
	if (line > 0)
		return hc_seterr(err, errlen, -EINVAL, "%s:%d: syntax error or bad value",
				 path, line);
	return 0;
}

/* --- reload ---------------------------------------------------------------- */

/* Append ", @what" (or "@what" first) to @buf; counts in *@n. */
static void restart_key(char *buf, size_t len, size_t *used, unsigned int *n,
			const char *what)
{
	int w;

	(*n)++;
	if (!len || *used >= len - 1)
		return;
	w = snprintf(buf + *used, len - *used, "%s%s", *used ? ", " : "", what);
	if (w > 0)
		*used += (size_t)w < len - *used ? (size_t)w : len - *used - 1;
}

static void restart_backends(const struct hc_config *old,
			     const struct hc_config *next, char *buf, size_t len,
			     size_t *used, unsigned int *n)
{
	char what[HC_NAME_MAX + 64];
	const struct hc_backend *a, *b;
	unsigned int i;

#define HC_BACKEND_FIELD(f, cmp) do {					\
		if (cmp) {						\
			snprintf(what, sizeof(what), "[backend %s] " #f, a->name); \
			restart_key(buf, len, used, n, what);		\
		}							\
	} while (0)

	for (i = 0; i < old->nr_backends; i++) {
		a = &old->backends[i];
		b = hc_config_backend(next, a->name);
		if (!b) {
			snprintf(what, sizeof(what), "[backend %s] (removed)", a->name);
			restart_key(buf, len, used, n, what);
			continue;
		}
		HC_BACKEND_FIELD(type, a->type != b->type);
		HC_BACKEND_FIELD(endpoint, strcmp(a->endpoint, b->endpoint));
		HC_BACKEND_FIELD(region, strcmp(a->region, b->region));
		HC_BACKEND_FIELD(addressing, a->addressing != b->addressing);
		HC_BACKEND_FIELD(access_key, strcmp(a->access_key, b->access_key));
		HC_BACKEND_FIELD(secret_key, strcmp(a->secret_key, b->secret_key));
		HC_BACKEND_FIELD(ca_file, strcmp(a->ca_file, b->ca_file));
		HC_BACKEND_FIELD(root, strcmp(a->root, b->root));
		HC_BACKEND_FIELD(anonymous, a->anonymous != b->anonymous);
		HC_BACKEND_FIELD(sign_payload, a->sign_payload != b->sign_payload);
		HC_BACKEND_FIELD(credential_process_timeout,
				 a->process_timeout != b->process_timeout);
	}
#undef HC_BACKEND_FIELD
	for (i = 0; i < next->nr_backends; i++) {
		if (hc_config_backend(old, next->backends[i].name))
			continue;
		snprintf(what, sizeof(what), "[backend %s] (added)",
			 next->backends[i].name);
		restart_key(buf, len, used, n, what);
	}
}

/*
 * hc_config_apply_live() - take into the running @cfg what a reload
 * applies at once: log_level, and the revalidate policy of each backend
 * that @next keeps (the daemon sends the kernel its rules again).
 */
void hc_config_apply_live(struct hc_config *cfg, const struct hc_config *next)
{
	unsigned int i;

	cfg->log_level = next->log_level;
	for (i = 0; i < cfg->nr_backends; i++) {
		struct hc_backend *a = &cfg->backends[i];
		const struct hc_backend *b = hc_config_backend(next, a->name);

		if (!b)
			continue;
		a->revalidate = b->revalidate;
		a->revalidate_after = b->revalidate_after;
	}
}

/*
 * hc_config_restart_keys() - which settings of @next differ from @old's in
 * a way hypercached cannot apply while it runs (everything but
 * log_level and the backends' revalidate, hc_config_apply_live()): their names, comma-separated, in @buf ("part_size,
 * [backend s3] endpoint"; never a value: they may be secrets).  Returns
 * how many.  A difference in a field this function does not name (one
 * added to struct hc_config later) is reported as "other settings", so a
 * new key is never taken for a live one by omission.
 */
unsigned int hc_config_restart_keys(const struct hc_config *old,
				    const struct hc_config *next,
				    char *buf, size_t len)
{
	struct hc_config *a, *b;
	unsigned int i, n = 0;
	size_t used = 0;

	if (len)
		buf[0] = '\0';
#define HC_FIELD(f, cmp) do {						\
		if (cmp)						\
			restart_key(buf, len, &used, &n, #f);		\
	} while (0)
	HC_FIELD(ingest_concurrency, old->ingest_concurrency != next->ingest_concurrency);
	HC_FIELD(part_size, old->part_size != next->part_size);
	HC_FIELD(max_objects_in_flight,
		 old->max_objects_in_flight != next->max_objects_in_flight);
	HC_FIELD(timeout_connect, old->timeout_connect != next->timeout_connect);
	HC_FIELD(timeout_request, old->timeout_request != next->timeout_request);
	HC_FIELD(retry_attempts, old->retry_attempts != next->retry_attempts);
	HC_FIELD(metrics_listen, strcmp(old->metrics_listen, next->metrics_listen));
	HC_FIELD(default_backend, strcmp(old->default_backend, next->default_backend));
	HC_FIELD(egress_price_per_gb,
		 old->egress_price_per_gb != next->egress_price_per_gb);
	HC_FIELD(buffer_budget, old->buffer_budget != next->buffer_budget);
	HC_FIELD(numa, old->numa != next->numa);
#undef HC_FIELD
	restart_backends(old, next, buf, len, &used, &n);
	if (n)
		return n;

	/*
	 * Nothing named differs: compare the rest byte for byte (both were
	 * built over hc_config_defaults()' memset, so padding is zero),
	 * with what may differ harmlessly made equal: the live log_level,
	 * the header lines and the order of the backends.
	 */
	a = malloc(sizeof(*a));
	b = malloc(sizeof(*b));
	if (!a || !b) {
		restart_key(buf, len, &used, &n, "other settings (not compared: out of memory)");
		goto out;
	}
	*a = *old;
	*b = *next;
	a->log_level = b->log_level;
	memset(a->backends, 0, sizeof(a->backends));
	memset(b->backends, 0, sizeof(b->backends));
	for (i = 0; i < old->nr_backends; i++) {
		const struct hc_backend *nb = hc_config_backend(next, old->backends[i].name);

		a->backends[i] = old->backends[i];
		if (nb) {
			b->backends[i] = *nb;
			/* live: hc_config_apply_live() */
			a->backends[i].revalidate = nb->revalidate;
			a->backends[i].revalidate_after = nb->revalidate_after;
		}
		a->backends[i].line = b->backends[i].line = 0;
	}
	if (memcmp(a, b, sizeof(*a)))
		restart_key(buf, len, &used, &n, "other settings");
out:
	free(a);
	free(b);
	return n;
}
