/* SPDX-License-Identifier: GPL-2.0 */
/*
 * S3 credentials: the chain the AWS SDKs resolve, and the refresh of
 * temporary credentials.  One module for hypercached, hcfetch and hcctl's
 * S3 plugin; Documentation/hypercached.conf.md "Credentials" for users.
 *
 * hc_creds_lookup() takes the first source that has credentials:
 *   1. the backend's access_key/secret_key, or anonymous = true;
 *   2. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY [+ AWS_SESSION_TOKEN];
 *   3. web identity: AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN
 *      [+ AWS_ROLE_SESSION_NAME] through STS AssumeRoleWithWebIdentity
 *      (its endpoint chosen as the S3 one below, with AWS_ENDPOINT_URL_STS
 *      and the sts sub-section, else https://sts.REGION.amazonaws.com/);
 *   4. profile $AWS_PROFILE (else "default") of the shared credentials
 *      file ($AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials) and of
 *      the config file ($AWS_CONFIG_FILE, else ~/.aws/config, where it is
 *      [profile NAME]): with role_arn, its role (below); else static keys,
 *      else its credential_process (run by /bin/sh, its JSON output read
 *      with json-c);
 *   5. the EC2 instance metadata service v2, unless
 *      AWS_EC2_METADATA_DISABLED=true (AWS_EC2_METADATA_SERVICE_ENDPOINT,
 *      else http://169.254.169.254; HC_CRED_IMDS_TIMEOUT_MS per request);
 *   6. anonymous: unsigned requests, for public buckets.
 * A profile's role, as botocore resolves it: with web_identity_token_file,
 * web identity as in 3 (the profile's role_session_name); else STS
 * AssumeRole (RoleSessionName role_session_name, else hypercache-TIME;
 * ExternalId external_id; DurationSeconds duration_seconds, 900..43200)
 * at STS's endpoint (as in 3) for the chosen region, SigV4-signed with
 * the credentials of exactly one of
 *   - source_profile = NAME: NAME's web identity, else its static keys,
 *     else its own role (role chaining, recursively), else its
 *     credential_process; a profile may be its own source only with
 *     static keys; a loop or a chain of more than 8 profiles is -ELOOP
 *     naming the chain;
 *   - credential_source = Environment (AWS_ACCESS_KEY_ID ...: when the
 *     chosen profile's chain ends there, those keys are its source and
 *     not, as in 2, the credentials) or Ec2InstanceMetadata (as in 5).
 * mfa_serial (a token code to type) and credential_source = EcsContainer
 * are -EOPNOTSUPP.  Every link is checked before the first STS call.
 *
 * A source that is configured but fails (half a key pair, an unreadable
 * token file, STS refusing, a credential_process exiting non-zero, an
 * AWS_PROFILE that names no profile, a role's source absent) is an error,
 * not a fall-through: the operator asked for it.  The region is the
 * backend's `region` when given, else AWS_REGION, AWS_DEFAULT_REGION, the
 * profile's region, "us-east-1".
 * The endpoint is the backend's `endpoint` when given; else, unless
 * AWS_IGNORE_CONFIGURED_ENDPOINT_URLS (or the profile's
 * ignore_configured_endpoint_urls) is true, AWS_ENDPOINT_URL_S3,
 * AWS_ENDPOINT_URL, the s3 endpoint_url of the profile's
 * `services = NAME` section ([services NAME] of the config file), the
 * profile's endpoint_url; else https://s3.REGION.amazonaws.com (the AWS
 * SDKs' "service-specific endpoints" order).  A malformed URL is -EINVAL.
 *
 * A credential_process runs at most the backend's
 * credential_process_timeout seconds (HC_PROCESS_TIMEOUT_DEFAULT); then
 * its process group is killed and the lookup (or refresh) fails with
 * -ETIMEDOUT, naming the profile and the command.  Its output must be
 * Version 1 with an Expiration, if any, that has not passed.
 *
 * Temporary credentials (3, a credential_process with Expiration, a role,
 * 5) live in a provider shared by every copy of them: hc_creds_current()
 * refreshes them HC_CRED_REFRESH_AHEAD seconds before they expire (one
 * thread fetches; the others keep signing with their still valid copy; only
 * a copy already expired waits; a role's provider holds its source's
 * credentials and brings them up to date, by the same rule, before each
 * AssumeRole, and once more after STS refused them as ExpiredToken), and
 * hc_creds_expired() marks them stale after a request failed with
 * ExpiredToken, so that the next hc_creds_current() fetches fresh ones.
 * Static credentials have no provider.
 *
 * Thread-safety: a struct hc_creds is one thread's; the provider behind it
 * is shared and locked.  Results hold secrets: hc_creds_release() clears
 * them and drops the provider.
 */
#ifndef HC_CRED_H
#define HC_CRED_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define HC_CRED_KEY_MAX		255
#define HC_CRED_TOKEN_MAX	4095
#define HC_CRED_NAME_MAX	63
#define HC_CRED_REGION_MAX	63
#define HC_CRED_REFRESH_AHEAD	300	/* s before Expiration */
#define HC_CRED_IMDS_TIMEOUT_MS	1000
#define HC_CRED_HTTP_TIMEOUT_S	30	/* STS */
#define HC_CRED_PROCESS_MAX	(64 << 10)	/* bytes of output */
#define HC_CRED_ENDPOINT_MAX	1023		/* HC_URL_MAX */

struct hc_backend;
struct hc_credp;

/* Where hc_creds_lookup() found the credentials. */
enum hc_creds_source {
	HC_CREDS_CONFIG,	/* access_key/secret_key of the backend */
	HC_CREDS_ENV,		/* AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY */
	HC_CREDS_WEB_IDENTITY,	/* STS AssumeRoleWithWebIdentity */
	HC_CREDS_FILE,		/* shared credentials or config file */
	HC_CREDS_PROCESS,	/* a profile's credential_process */
	HC_CREDS_IMDS,		/* EC2 instance metadata v2 */
	HC_CREDS_ANONYMOUS,	/* none: unsigned requests */
	HC_CREDS_ASSUME_ROLE,	/* a profile's role_arn: STS AssumeRole */
};

/* Where hc_creds_lookup() found the S3 endpoint, in precedence order. */
enum hc_endpoint_source {
	HC_ENDPOINT_CONFIG,	/* the backend's endpoint key */
	HC_ENDPOINT_ENV_S3,	/* AWS_ENDPOINT_URL_S3 */
	HC_ENDPOINT_ENV,	/* AWS_ENDPOINT_URL */
	HC_ENDPOINT_SERVICES,	/* [services NAME] s3 = endpoint_url = ... */
	HC_ENDPOINT_PROFILE,	/* the profile's endpoint_url */
	HC_ENDPOINT_DEFAULT,	/* https://s3.REGION.amazonaws.com */
};

struct hc_creds {
	enum hc_creds_source source;
	char access_key[HC_CRED_KEY_MAX + 1];	/* "" iff anonymous */
	char secret_key[HC_CRED_KEY_MAX + 1];
	char session_token[HC_CRED_TOKEN_MAX + 1];	/* "" if none */
	char profile[HC_CRED_NAME_MAX + 1];	/* "" unless from a profile */
	char region[HC_CRED_REGION_MAX + 1];	/* resolved, never "" */
	char endpoint[HC_CRED_ENDPOINT_MAX + 1];	/* resolved, never "" */
	enum hc_endpoint_source endpoint_source;
	time_t expiration;			/* 0: does not expire */
	unsigned int gen;			/* of the provider's set */
	struct hc_credp *provider;		/* NULL: static */
};

/* hc_creds_source_name() - "the configuration", "web identity (STS)", ... */
const char *hc_creds_source_name(enum hc_creds_source s);

/* hc_endpoint_source_name() - "the configuration", "AWS_ENDPOINT_URL_S3", ... */
const char *hc_endpoint_source_name(enum hc_endpoint_source s);

/*
 * hc_creds_lookup() - the credentials and region of S3 backend @b (NULL:
 * none configured), by the chain above.  @envp is a NULL-terminated
 * "NAME=value" array (environ, or a test's); @home NULL means $HOME from
 * @envp.  Returns 0; -EINVAL (half a pair, a malformed file or answer, a
 * role with both or neither of source_profile and credential_source, a
 * duration_seconds out of range), -ENOENT (AWS_PROFILE or a source_profile
 * names no profile, a token file is missing, credential_source =
 * Environment without the keys), -ELOOP (a source_profile loop, too long a
 * chain), -EOPNOTSUPP (mfa_serial, credential_source = EcsContainer),
 * -ENODEV (credential_source = Ec2InstanceMetadata without the service),
 * -EACCES (STS or IMDS refused, a credential_process failed),
 * -EIO/-ETIMEDOUT (STS unreachable, a credential_process killed after its
 * timeout), -ENOMEM, with a message naming the source (the profile, the
 * role) in @err.  On success release @out with
 * hc_creds_release().
 */
int hc_creds_lookup(const struct hc_backend *b, char *const envp[],
		    const char *home, struct hc_creds *out,
		    char *err, size_t errlen);

/* hc_creds_hold() - @dst becomes a copy of @src holding its own reference. */
void hc_creds_hold(struct hc_creds *dst, const struct hc_creds *src);

/* hc_creds_release() - drop the provider reference and clear the secrets. */
void hc_creds_release(struct hc_creds *c);

/*
 * hc_creds_current() - bring @c up to date with its provider, refreshing
 * the provider's set first when it expires within HC_CRED_REFRESH_AHEAD
 * seconds or was marked stale.  A failed refresh keeps a set that has not
 * expired yet (0 is returned, the next call tries again) and is an error
 * (negative errno, @err) once it has.  Static credentials: 0 at once.
 */
int hc_creds_current(struct hc_creds *c, char *err, size_t errlen);

/*
 * hc_creds_expired() - a request signed with @c was refused as expired
 * (ExpiredToken, InvalidToken, RequestExpired): mark the provider's set
 * stale unless it has been replaced since @c's copy.  Returns true when a
 * retry with hc_creds_current()'s next set may succeed (a provider
 * exists), false for static credentials.
 */
bool hc_creds_expired(struct hc_creds *c);

/* hc_creds_parse_time() - an ISO 8601 UTC time ("2026-12-01T23:59:59Z",
 * fractions and "+00:00" allowed) into *@t; -EINVAL otherwise. */
int hc_creds_parse_time(const char *s, time_t *t);

/* Parsers of the sources' answers, exposed for the unit tests: each fills
 * @out's keys and expiration; -EINVAL with a message on a malformed or
 * incomplete answer, -EACCES for an STS <Error>. */
int hc_creds_parse_sts(const char *doc, size_t len, struct hc_creds *out,
		       char *err, size_t errlen);
int hc_creds_parse_process(const char *json, struct hc_creds *out,
			   char *err, size_t errlen);
int hc_creds_parse_imds(const char *json, struct hc_creds *out,
			char *err, size_t errlen);

#endif /* HC_CRED_H */
