/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hypercached's configuration: an INI file (default HC_CONFIG_PATH) read
 * with libinih into a struct hc_config of fixed-size fields.
 *
 *   [hypercached]        daemon settings (all optional)
 *   [backend NAME]       one per backend; NAME as in hypercache://NAME/key
 *
 * Every key, its default, unit and range: Documentation/hypercached.conf.md.
 *
 * Strict: an unknown section or key, a key given twice, a repeated backend
 * name, an indented line (inih would take it as the continuation of the
 * previous value), a missing required key and a bad or out-of-range value
 * are all errors.  The first error is reported as
 *   FILE:LINE: [SECTION] KEY: what is wrong
 * (without " KEY" when the section as a whole is wrong).
 *
 * No global state of our own; the functions are reentrant.  libinih's line
 * limit is a process-wide setting: the first call raises it to
 * HC_INI_MAX_LINE once (pthread_once), so long session tokens fit.
 * Errors return -EINVAL (bad content), -ENOENT/-EACCES/... (file), -EFBIG
 * (file larger than HC_CONFIG_FILE_MAX) or -ENOMEM.
 */
#ifndef HC_CONFIG_H
#define HC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HC_CONFIG_PATH		"/etc/hypercache/hypercache.conf"
#define HC_CONFIG_FILE_MAX	(1 << 20)	/* bytes */
#define HC_INI_MAX_LINE		4096		/* bytes, '\n' included */

#define HC_NAME_MAX		63	/* backend name, as URI_NAME_MAX */
#define HC_BACKENDS_MAX		16
#define HC_URL_MAX		1023
#define HC_PATH_MAX		1023
#define HC_REGION_MAX		63
#define HC_KEY_MAX		255	/* access key id, secret key */
#define HC_TOKEN_MAX		(HC_INI_MAX_LINE - 1)
#define HC_LISTEN_MAX		263	/* [host]:port */
#define HC_HOST_MAX		255
#define HC_PROCESS_TIMEOUT_DEFAULT 60	/* s, as the AWS SDK for Go */

enum hc_log_level {
	HC_LOG_ERROR,
	HC_LOG_WARN,
	HC_LOG_INFO,
	HC_LOG_DEBUG,
};

enum hc_numa_mode {
	HC_NUMA_AUTO,		/* place on a machine of 2+ nodes (place.h) */
	HC_NUMA_OFF,
};

enum hc_backend_type {
	HC_BACKEND_NONE,	/* only while parsing */
	HC_BACKEND_S3,
	HC_BACKEND_POSIX,
};

enum hc_addressing {
	HC_ADDR_PATH,		/* https://endpoint/bucket/key */
	HC_ADDR_VIRTUAL,	/* https://bucket.endpoint/key */
};

/*
 * revalidate = never | on-open-after SECONDS | always: when the kernel asks
 * whether a cached READY object of the backend is still the backend's
 * version (Documentation/ingest.md, "Revalidation"); the values are the
 * kernel's enum hc_reval_mode.
 */
enum hc_revalidate {
	HC_REVALIDATE_NEVER,
	HC_REVALIDATE_AFTER,
	HC_REVALIDATE_ALWAYS,
};
#define HC_REVALIDATE_AFTER_MAX	315360000U	/* s, ten years: HC_REVAL_TTL_MAX */

struct hc_backend {
	char name[HC_NAME_MAX + 1];
	enum hc_backend_type type;
	unsigned int line;			/* of its [backend NAME] header */
	/* s3 */
	char endpoint[HC_URL_MAX + 1];		/* "" = the chain's (cred.h) */
	char region[HC_REGION_MAX + 1];		/* "us-east-1" */
	bool region_set;			/* given: before AWS_REGION */
	enum hc_addressing addressing;		/* path */
	char access_key[HC_KEY_MAX + 1];	/* "" = look elsewhere */
	char secret_key[HC_KEY_MAX + 1];	/* set iff access_key is */
	char ca_file[HC_PATH_MAX + 1];		/* "" = system CA store */
	bool anonymous;				/* unsigned requests (cred.h) */
	bool sign_payload;			/* false: UNSIGNED-PAYLOAD uploads */
	unsigned int process_timeout;		/* 60 s, 1..3600: credential_process */
	/* both types */
	enum hc_revalidate revalidate;		/* never */
	unsigned int revalidate_after;		/* s, on-open-after's; else 0 */
	/* posix */
	char root[HC_PATH_MAX + 1];		/* absolute, required */
};

struct hc_config {
	enum hc_log_level log_level;		/* info */
	unsigned int ingest_concurrency;	/* 8, 1..64 ranged GETs per object */
	uint64_t part_size;			/* 8 MiB, 1 MiB..1 GiB, 4 KiB multiple */
	unsigned int max_objects_in_flight;	/* 4, 1..256 */
	unsigned int timeout_connect;		/* 10 s, 1..3600 */
	unsigned int timeout_request;		/* 300 s, 1..86400 */
	unsigned int retry_attempts;		/* 5, 1..100, first included */
	char metrics_listen[HC_LISTEN_MAX + 1];	/* "127.0.0.1:9110", as given */
	char metrics_host[HC_HOST_MAX + 1];	/* "127.0.0.1"; IPv6 without [] */
	uint16_t metrics_port;			/* 9110 */
	char default_backend[HC_NAME_MAX + 1];	/* "s3": serves s3:// URIs */
	double egress_price_per_gb;		/* 0.09 dollars per 1e9 bytes */
	unsigned int nr_backends;
	struct hc_backend backends[HC_BACKENDS_MAX];
	uint64_t buffer_budget;			/* 256 MiB, 1M..64G: part buffers in flight */
	enum hc_numa_mode numa;			/* auto */
};

/* hc_config_defaults() - every setting at its default, no backends. */
void hc_config_defaults(struct hc_config *cfg);

/*
 * hc_config_parse() - parse the NUL-terminated INI @text over the defaults
 * into @cfg; @name is the file name used in messages.  Returns 0, or a
 * negative errno with a message in @err (may be NULL; truncated to
 * @errlen).  @cfg is undefined on error.
 */
int hc_config_parse(const char *text, const char *name, struct hc_config *cfg,
		    char *err, size_t errlen);

/* hc_config_load() - hc_config_parse() of the file at @path (named so). */
int hc_config_load(const char *path, struct hc_config *cfg,
		   char *err, size_t errlen);

/*
 * hc_config_url_problem() - NULL if @v is an endpoint URL as the `endpoint`
 * key takes it (http:// or https://, a host, no spaces; the length is the
 * caller's to check), else what is wrong with it, worded to be followed
 * by the quoted value ("no host in \"http://\""); the credential chain
 * checks AWS_ENDPOINT_URL* and endpoint_url with it too.
 */
const char *hc_config_url_problem(const char *v);

/* hc_config_backend() - the backend called @name, or NULL. */
const struct hc_backend *hc_config_backend(const struct hc_config *cfg,
					   const char *name);

/*
 * hc_ini_file() - libinih over the file at @path (at most
 * HC_CONFIG_FILE_MAX bytes) as the AWS CLI writes its files: indented lines
 * allowed, every key of every section given to @fn (as for ini_parse(); a
 * zero return is an error).  Returns 0; -ENOENT etc. for the file; -EINVAL
 * with "PATH:LINE: ..." in @err for a line @fn refused or libinih could
 * not read; -ENOMEM.
 */
typedef int (*hc_ini_handler)(void *user, const char *section,
			      const char *name, const char *value);
int hc_ini_file(const char *path, hc_ini_handler fn, void *user,
		char *err, size_t errlen);

/*
 * hc_config_restart_keys() - the settings that differ between the running
 * configuration @old and a reloaded @next and need a restart (all but
 * log_level and each backend's revalidate, which a SIGHUP applies): their
 * names, comma-separated, in @buf (@len bytes, truncated), never their
 * values.  Returns how many.
 */
unsigned int hc_config_restart_keys(const struct hc_config *old,
				    const struct hc_config *next,
				    char *buf, size_t len);

/*
 * hc_config_apply_live() - copy into the running @cfg what a SIGHUP
 * applies at once: log_level and the revalidate policy of each backend
 * @next keeps.
 */
void hc_config_apply_live(struct hc_config *cfg, const struct hc_config *next);

#include "cred.h"

#endif /* HC_CONFIG_H */
