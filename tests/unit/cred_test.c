// SPDX-License-Identifier: GPL-2.0
/*
 * The credential chain (helper/lib/cred.c): each source alone and in
 * precedence order, the parsers of STS, credential_process and IMDS
 * answers, refresh before expiry, and the S3 client's one retry after
 * ExpiredToken, against an in-process fake (libmicrohttpd on 127.0.0.1)
 * that plays STS, the EC2 metadata service v2 and one S3 object.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "kselftest_harness.h"
#include "config.h"
#include "cred.h"
#include "s3.h"
#include "sigv4.h"
#include "util.h"

#define JWT	"eyJhbGciOi.jwt-token.sig"
#define ROLE	"arn:aws:iam::123456789012:role/hc"

/* What the fake STS saw of one call. */
struct sts_call {
	char action[40], version[16], role[128], session[80];
	char external_id[64], duration[16];
	bool has_external_id, has_duration;
	/* AssumeRole's signature */
	char ak[64], date[16], region[32], service[16], signed_headers[128];
	char amz_date[20], token[128];
	bool sig_ok;		/* recomputed over what arrived: the same */
	char why[2048];		/* what was wrong, if anything */
};

#define CALLS_MAX 16

/* The fake's state; the MHD thread and the test share it. */
static struct {
	pthread_mutex_t lock;
	struct MHD_Daemon *d;
	unsigned short port;
	/* script */
	long sts_ttl;		/* s from now of each STS Expiration */
	bool sts_deny;		/* answer AccessDenied */
	bool role_deny;		/* AssumeRole: AccessDenied */
	char expired_ak[64];	/* AssumeRole signed with it: ExpiredToken, once */
	long imds_ttl;
	bool imds_no_role;
	int s3_expire;		/* next N S3 requests: 400 ExpiredToken */
	bool s3_expire_403;	/* ... as a 403 instead */
	/* seen */
	int sts_calls, imds_token_calls, imds_cred_calls, s3_calls;
	int proxied;		/* requests in absolute form: sent to a proxy */
	char sts_body[2048];
	struct sts_call calls[CALLS_MAX];	/* call n is calls[n - 1] */
	int roles_issued;	/* ASIAROLE<n> */
	char s3_token[256];	/* x-amz-security-token of the last S3 request */
	bool s3_signed;		/* the last S3 request had Authorization */
} F = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct rq {
	char *body;
	size_t len;
	bool started;
};

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct rq *r = *con_cls;

	if (r) {
		free(r->body);
		free(r);
	}
	*con_cls = NULL;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *body)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
					    MHD_RESPMEM_MUST_COPY);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static void iso(long ttl, char *out, size_t len)
{
	time_t t = time(NULL) + ttl;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static const char *hdr(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/* The value of field @key of form @body, %-decoded, into @out; false if absent. */
static bool form_get(const char *body, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key), n = 0;
	const char *s = body, *v;
	unsigned int x;

	for (; s && *s; s = strchr(s, '&') ? strchr(s, '&') + 1 : NULL) {
		if (strncmp(s, key, klen) || s[klen] != '=')
			continue;
		for (v = s + klen + 1; *v && *v != '&' && n + 1 < len; v++) {
			if (*v == '%' && sscanf(v + 1, "%2x", &x) == 1) {
				out[n++] = (char)x;
				v += 2;
			} else {
				out[n++] = *v == '+' ? ' ' : *v;
			}
		}
		out[n] = '\0';
		return true;
	}
	out[0] = '\0';
	return false;
}

/*
 * The secret and session token of every access key the fake knows: the
 * tests' static keys, and the temporary ones its STS and IMDS issue.
 */
static bool secret_of(const char *ak, char *sk, char *tok, size_t len)
{
	static const struct { const char *ak, *sk, *tok; } fixed[] = {
		{ "AKIDFILEDEFAULT", "secretfiledefault", "" },
		{ "AKIDFILEDEV", "secretfiledev", "tokenfiledev" },
		{ "AKIDSRC", "secretsrc", "" },
		{ "AKIDENV", "secretenv", "tokenenv" },
		{ "AKIDPROC", "secretproc", "" },
	};
	static const struct { const char *prefix, *sk, *tok; } issued[] = {
		{ "ASIAROLE", "rolesecret", "roletoken" },
		{ "ASIASTS", "stssecret", "ststoken" },
		{ "ASIAIMDS", "imdssecret", "imdstoken" },
	};
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		if (!strcmp(ak, fixed[i].ak)) {
			snprintf(sk, len, "%s", fixed[i].sk);
			snprintf(tok, len, "%s", fixed[i].tok);
			return true;
		}
	for (i = 0; i < ARRAY_SIZE(issued); i++) {
		n = strlen(issued[i].prefix);
		if (!strncmp(ak, issued[i].prefix, n) && ak[n]) {
			snprintf(sk, len, "%s%s", issued[i].sk, ak + n);
			snprintf(tok, len, "%s%s", issued[i].tok, ak + n);
			return true;
		}
	}
	return false;
}

/*
 * Check the SigV4 signature of the request the fake received, as STS
 * does: its Authorization names the key, the scope and the signed
 * headers; the signature is computed again (sigv4.c) over the canonical
 * request made of what arrived (method, path, those headers as received,
 * the body's hash), with the key's secret and session token.  Fills @k's
 * seen fields; returns NULL, or STS's error code with @k->why.
 */
static const char *sts_verify(struct MHD_Connection *c, const char *url,
			      const struct rq *r, struct sts_call *k)
{
	const char *authz = hdr(c, "Authorization");
	const char *date = hdr(c, "X-Amz-Date");
	const char *tok = hdr(c, "X-Amz-Security-Token");
	char sk[128], want_tok[128], sig[65], list[128], *name, *save = NULL;
	struct sigv4_header h[8];
	struct sigv4_request req = { "POST", url, NULL, h, 0, NULL };
	struct sigv4_credentials cred = { k->ak, sk, NULL };
	struct sigv4_params par = { k->region, k->service, 0, 0 };
	struct sigv4_result res;
	char phash[65], e[256];
	struct tm tm = { 0 };
	int rc;

	snprintf(k->token, sizeof(k->token), "%s", tok ? tok : "");
	if (!authz || sscanf(authz, "AWS4-HMAC-SHA256 Credential=%63[^/]/%15[^/]/%31[^/]/%15[^/]/aws4_request, SignedHeaders=%127[^,], Signature=%64s",
			     k->ak, k->date, k->region, k->service,
			     k->signed_headers, sig) != 6) {
		snprintf(k->why, sizeof(k->why), "Authorization \"%s\"",
			 authz ? authz : "");
		return "MissingAuthenticationToken";
	}
	if (!secret_of(k->ak, sk, want_tok, sizeof(sk))) {
		snprintf(k->why, sizeof(k->why), "unknown key %s", k->ak);
		return "InvalidClientTokenId";
	}
	if (strcmp(k->token, want_tok)) {
		snprintf(k->why, sizeof(k->why), "key %s with token \"%s\", not \"%s\"",
			 k->ak, k->token, want_tok);
		return "InvalidClientTokenId";
	}
	if (*want_tok)
		cred.session_token = want_tok;
	if (!date || !strptime(date, "%Y%m%dT%H%M%SZ", &tm)) {
		snprintf(k->why, sizeof(k->why), "X-Amz-Date \"%s\"", date ? date : "");
		return "IncompleteSignature";
	}
	snprintf(k->amz_date, sizeof(k->amz_date), "%s", date);
	par.timestamp = timegm(&tm);
	snprintf(list, sizeof(list), "%s", k->signed_headers);
	for (name = strtok_r(list, ";", &save); name;
	     name = strtok_r(NULL, ";", &save)) {
		if (req.n_headers == ARRAY_SIZE(h) || !hdr(c, name)) {
			snprintf(k->why, sizeof(k->why), "signed header %s not received", name);
			return "IncompleteSignature";
		}
		h[req.n_headers++] = (struct sigv4_header){ name, hdr(c, name) };
	}
	sigv4_sha256_hex(r->body ? r->body : "", r->len, phash);
	req.payload_hash = phash;
	rc = sigv4_sign(&req, &cred, &par, &res, e, sizeof(e));
	if (rc) {
		snprintf(k->why, sizeof(k->why), "sigv4_sign: %s", e);
		return "IncompleteSignature";
	}
	k->sig_ok = !strcmp(res.signature, sig);
	if (!k->sig_ok)
		snprintf(k->why, sizeof(k->why), "signature %s, computed %s over\n%s",
			 sig, res.signature, res.canonical_request);
	sigv4_result_free(&res);
	return k->sig_ok ? NULL : "SignatureDoesNotMatch";
}

static enum MHD_Result sts_error(struct MHD_Connection *c, unsigned int status,
				 const char *code, const char *msg)
{
	char doc[1024];

	snprintf(doc, sizeof(doc),
		 "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender</Type><Code>%s</Code><Message>%s</Message></Error><RequestId>0</RequestId></ErrorResponse>",
		 code, msg);
	return reply(c, status, doc);
}

/* STS: call @n, what the fake saw of it into @k. */
static enum MHD_Result sts_answer(struct MHD_Connection *c, const char *url,
				  struct rq *r, int n, struct sts_call *k)
{
	char doc[2048], exp[32], msg[512];
	const char *code;

	form_get(F.sts_body, "Action", k->action, sizeof(k->action));
	form_get(F.sts_body, "Version", k->version, sizeof(k->version));
	form_get(F.sts_body, "RoleArn", k->role, sizeof(k->role));
	form_get(F.sts_body, "RoleSessionName", k->session, sizeof(k->session));
	k->has_external_id = form_get(F.sts_body, "ExternalId", k->external_id,
				      sizeof(k->external_id));
	k->has_duration = form_get(F.sts_body, "DurationSeconds", k->duration,
				   sizeof(k->duration));
	if (strcmp(k->version, "2011-06-15"))
		return sts_error(c, 400, "InvalidAction", "Version");
	if (!strcmp(k->action, "AssumeRole")) {
		code = sts_verify(c, url, r, k);
		if (code)
			return sts_error(c, 403, code, k->why);
		if (!strcmp(k->ak, F.expired_ak)) {
			F.expired_ak[0] = '\0';		/* once */
			return sts_error(c, 400, "ExpiredToken",
					 "The security token included in the request is expired");
		}
		if (F.role_deny) {
			snprintf(msg, sizeof(msg), "User: arn:aws:iam::123456789012:user/%s is not authorized to perform: sts:AssumeRole on resource: %s",
				 k->ak, k->role);
			return sts_error(c, 403, "AccessDenied", msg);
		}
		n = ++F.roles_issued;
		iso(F.sts_ttl, exp, sizeof(exp));
		snprintf(doc, sizeof(doc),
			 "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult><AssumedRoleUser><AssumedRoleId>AROA3XFRBF535PLBIFPI4:%s</AssumedRoleId><Arn>%s/%s</Arn></AssumedRoleUser><Credentials><AccessKeyId>ASIAROLE%d</AccessKeyId><SecretAccessKey>rolesecret%d</SecretAccessKey><SessionToken>roletoken%d</SessionToken><Expiration>%s</Expiration></Credentials><PackedPolicySize>6</PackedPolicySize></AssumeRoleResult><ResponseMetadata><RequestId>c6104cbe</RequestId></ResponseMetadata></AssumeRoleResponse>",
			 k->session, k->role, k->session, n, n, n, exp);
		return reply(c, 200, doc);
	}
	if (strcmp(k->action, "AssumeRoleWithWebIdentity"))
		return sts_error(c, 400, "InvalidAction", k->action);
	if (hdr(c, "Authorization"))
		return sts_error(c, 400, "InvalidParameterValue",
				 "AssumeRoleWithWebIdentity is not signed");
	if (F.sts_deny)
		return reply(c, 403, "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>Not authorized to perform sts:AssumeRoleWithWebIdentity</Message></Error></ErrorResponse>");
	iso(F.sts_ttl, exp, sizeof(exp));
	snprintf(doc, sizeof(doc),
		 "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIASTS%d</AccessKeyId><SecretAccessKey>stssecret%d</SecretAccessKey><SessionToken>ststoken%d</SessionToken><Expiration>%s</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>",
		 n, n, n, exp);
	return reply(c, 200, doc);
}

static enum MHD_Result sts(struct MHD_Connection *c, const char *url,
			   struct rq *r)
{
	struct sts_call k = { .sig_ok = false };
	enum MHD_Result ret;
	int n;

	snprintf(F.sts_body, sizeof(F.sts_body), "%.*s", (int)r->len,
		 r->body ? r->body : "");
	n = ++F.sts_calls;
	ret = sts_answer(c, url, r, n, &k);
	F.calls[(n - 1) % CALLS_MAX] = k;
	return ret;
}

static enum MHD_Result imds(struct MHD_Connection *c, const char *method,
			    const char *url)
{
	const char *t = hdr(c, "X-aws-ec2-metadata-token");
	char doc[1024], exp[32];
	int n;

	if (!strcmp(url, "/latest/api/token")) {
		if (strcmp(method, "PUT") ||
		    !hdr(c, "X-aws-ec2-metadata-token-ttl-seconds"))
			return reply(c, 400, "");
		F.imds_token_calls++;
		return reply(c, 200, "imds-session-token");
	}
	if (!t || strcmp(t, "imds-session-token"))
		return reply(c, 401, "");	/* IMDSv1 refused */
	if (!strcmp(url, "/latest/meta-data/iam/security-credentials/"))
		return F.imds_no_role ? reply(c, 404, "") : reply(c, 200, "hc-role\n");
	if (strcmp(url, "/latest/meta-data/iam/security-credentials/hc-role"))
		return reply(c, 404, "");
	n = ++F.imds_cred_calls;
	iso(F.imds_ttl, exp, sizeof(exp));
	snprintf(doc, sizeof(doc),
		 "{\n  \"Code\" : \"Success\",\n  \"LastUpdated\" : \"2026-12-01T00:00:00Z\",\n  \"Type\" : \"AWS-HMAC\",\n  \"AccessKeyId\" : \"ASIAIMDS%d\",\n  \"SecretAccessKey\" : \"imdssecret%d\",\n  \"Token\" : \"imdstoken%d\",\n  \"Expiration\" : \"%s\"\n}",
		 n, n, n, exp);
	return reply(c, 200, doc);
}

static enum MHD_Result s3(struct MHD_Connection *c)
{
	const char *t = hdr(c, "x-amz-security-token");

	F.s3_calls++;
	snprintf(F.s3_token, sizeof(F.s3_token), "%s", t ? t : "");
	F.s3_signed = hdr(c, "Authorization") != NULL;
	if (F.s3_expire > 0) {
		F.s3_expire--;
		return reply(c, F.s3_expire_403 ? 403 : 400,
			     "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>");
	}
	return reply(c, 200, "hello");
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	struct rq *r = *con_cls;
	enum MHD_Result ret;

	if (!r) {
		r = calloc(1, sizeof(*r));
		*con_cls = r;
		return MHD_YES;
	}
	if (*upload_size) {
		r->body = realloc(r->body, r->len + *upload_size + 1);
		memcpy(r->body + r->len, upload, *upload_size);
		r->len += *upload_size;
		r->body[r->len] = '\0';
		*upload_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&F.lock);
	if (!strncmp(url, "http://", 7)) {	/* the fake is the proxy too */
		F.proxied++;
		url = strchr(url + 7, '/') ?: "/";
	}
	if (!strcmp(url, "/sts/") && !strcmp(method, "POST"))
		ret = sts(c, url, r);
	else if (!strncmp(url, "/latest/", 8))
		ret = imds(c, method, url);
	else if (!strncmp(url, "/bkt/", 5))
		ret = s3(c);
	else
		ret = reply(c, 404, "");
	pthread_mutex_unlock(&F.lock);
	return ret;
}

static void fake_start(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *di;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	F.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
			       handler, NULL, MHD_OPTION_SOCK_ADDR, &sa,
			       MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
			       MHD_OPTION_END);
	if (!F.d)
		abort();
	di = MHD_get_daemon_info(F.d, MHD_DAEMON_INFO_BIND_PORT);
	F.port = di->port;
	F.sts_ttl = F.imds_ttl = 3600;
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

FIXTURE(chain)
{
	char dir[64];
	char home[160], jwt[160], sts[96], imds[96], cfile[160], kfile[160];
	char err[1024];
	struct hc_backend b;
	struct hc_creds c;
};

FIXTURE_SETUP(chain)
{
	strcpy(self->dir, "/tmp/hc-cred-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	fake_start();
	snprintf(self->home, sizeof(self->home), "%s/.aws", self->dir);
	ASSERT_EQ(0, mkdir(self->home, 0700));
	snprintf(self->kfile, sizeof(self->kfile), "%s/.aws/credentials", self->dir);
	snprintf(self->cfile, sizeof(self->cfile), "%s/.aws/config", self->dir);
	snprintf(self->home, sizeof(self->home), "HOME=%s", self->dir);
	snprintf(self->jwt, sizeof(self->jwt), "%s/jwt", self->dir);
	put(self->jwt, JWT "\n", 0600);
	snprintf(self->sts, sizeof(self->sts),
		 "AWS_ENDPOINT_URL_STS=http://127.0.0.1:%u/sts/", F.port);
	snprintf(self->imds, sizeof(self->imds),
		 "AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:%u/", F.port);
	memset(&self->b, 0, sizeof(self->b));
	self->b.type = HC_BACKEND_S3;
	strcpy(self->b.region, "us-east-1");
	snprintf(self->b.endpoint, sizeof(self->b.endpoint),
		 "http://127.0.0.1:%u", F.port);
}

FIXTURE_TEARDOWN(chain)
{
	char cmd[128];

	hc_creds_release(&self->c);
	MHD_stop_daemon(F.d);
	pthread_mutex_lock(&F.lock);
	memset((char *)&F + sizeof(F.lock), 0, sizeof(F) - sizeof(F.lock));
	pthread_mutex_unlock(&F.lock);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("cleanup failed");
}

#define LOOKUP(env) \
	hc_creds_lookup(&self->b, env, NULL, &self->c, self->err, sizeof(self->err))

static const char creds_file[] =
	"[default]\n"
	"aws_access_key_id = AKIDFILEDEFAULT\n"
	"aws_secret_access_key = secretfiledefault\n"
	"[dev]\n"
	"aws_access_key_id = AKIDFILEDEV\n"
	"aws_secret_access_key = secretfiledev\n"
	"aws_session_token = tokenfiledev\n"
	"[half]\n"
	"aws_access_key_id = AKIDHALF\n";

static const char config_file[] =
	"[default]\n"
	"region = eu-west-1\n"
	"[profile dev]\n"
	"region = eu-central-1\n"
	"s3 =\n"
	"    max_concurrent_requests = 20\n"
	"[profile proc]\n"
	"region = ap-south-1\n";

/* Each source alone, in the order of the chain, each beaten by the one before. */
TEST_F(chain, precedence)
{
	char web[200], arn[] = "AWS_ROLE_ARN=" ROLE, nm[] = "AWS_ROLE_SESSION_NAME=s1";
	char *env_all[] = { self->home, "AWS_ACCESS_KEY_ID=AKIDENV",
			    "AWS_SECRET_ACCESS_KEY=secretenv",
			    "AWS_SESSION_TOKEN=tokenenv", web, arn, nm, self->sts,
			    self->imds, NULL };
	char *env_web[] = { self->home, web, arn, nm, self->sts, self->imds, NULL };
	char *env_file[] = { self->home, self->imds, NULL };
	char *env_none[] = { self->home, "AWS_EC2_METADATA_DISABLED=true", NULL };

	snprintf(web, sizeof(web), "AWS_WEB_IDENTITY_TOKEN_FILE=%s", self->jwt);
	put(self->kfile, creds_file, 0600);
	put(self->cfile, config_file, 0600);

	/* 1. the configuration beats everything */
	strcpy(self->b.access_key, "AKIDCONF");
	strcpy(self->b.secret_key, "secretconf");
	ASSERT_EQ(0, LOOKUP(env_all)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_CONFIG, self->c.source);
	EXPECT_STREQ("AKIDCONF", self->c.access_key);
	EXPECT_STREQ("", self->c.session_token);
	EXPECT_EQ(NULL, self->c.provider);
	hc_creds_release(&self->c);
	self->b.access_key[0] = self->b.secret_key[0] = '\0';

	/* 2. then the environment's keys */
	ASSERT_EQ(0, LOOKUP(env_all)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_ENV, self->c.source);
	EXPECT_STREQ("AKIDENV", self->c.access_key);
	EXPECT_STREQ("tokenenv", self->c.session_token);
	hc_creds_release(&self->c);

	/* 3. then web identity, through STS */
	ASSERT_EQ(0, LOOKUP(env_web)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_WEB_IDENTITY, self->c.source);
	EXPECT_STREQ("ASIASTS1", self->c.access_key);
	EXPECT_STREQ("stssecret1", self->c.secret_key);
	EXPECT_STREQ("ststoken1", self->c.session_token);
	EXPECT_NE(NULL, self->c.provider);
	EXPECT_LT(time(NULL) + 3000, self->c.expiration);
	EXPECT_NE(NULL, strstr(F.sts_body, "Action=AssumeRoleWithWebIdentity"));
	EXPECT_NE(NULL, strstr(F.sts_body, "RoleSessionName=s1"));
	EXPECT_NE(NULL, strstr(F.sts_body, "WebIdentityToken=" JWT))
		TH_LOG("%s", F.sts_body);
	EXPECT_NE(NULL, strstr(F.sts_body, "RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fhc"))
		TH_LOG("%s", F.sts_body);
	hc_creds_release(&self->c);

	/* 4. then the shared files; the region from ~/.aws/config */
	ASSERT_EQ(0, LOOKUP(env_file)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_FILE, self->c.source);
	EXPECT_STREQ("AKIDFILEDEFAULT", self->c.access_key);
	EXPECT_STREQ("eu-west-1", self->c.region);
	EXPECT_EQ(0, F.imds_token_calls);
	hc_creds_release(&self->c);

	/* 5. then the metadata service */
	unlink(self->kfile);
	ASSERT_EQ(0, LOOKUP(env_file)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_IMDS, self->c.source);
	EXPECT_STREQ("ASIAIMDS1", self->c.access_key);
	EXPECT_STREQ("imdstoken1", self->c.session_token);
	EXPECT_EQ(1, F.imds_token_calls);
	hc_creds_release(&self->c);

	/* 6. then anonymous */
	ASSERT_EQ(0, LOOKUP(env_none)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_ANONYMOUS, self->c.source);
	EXPECT_STREQ("", self->c.access_key);
	EXPECT_EQ(1, F.imds_token_calls);	/* disabled: not asked */
}

TEST_F(chain, region_order)
{
	char *env_r[] = { self->home, "AWS_REGION=us-west-2",
			  "AWS_DEFAULT_REGION=sa-east-1",
			  "AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=S", NULL };
	char *env_d[] = { self->home, "AWS_DEFAULT_REGION=sa-east-1",
			  "AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=S", NULL };
	char *env_p[] = { self->home, "AWS_PROFILE=dev",
			  "AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=S", NULL };
	char *env_bad[] = { self->home, "AWS_REGION=EU West",
			    "AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=S", NULL };

	put(self->cfile, config_file, 0600);
	ASSERT_EQ(0, LOOKUP(env_r));
	EXPECT_STREQ("us-west-2", self->c.region);
	hc_creds_release(&self->c);
	ASSERT_EQ(0, LOOKUP(env_d));
	EXPECT_STREQ("sa-east-1", self->c.region);
	hc_creds_release(&self->c);
	ASSERT_EQ(0, LOOKUP(env_p)) TH_LOG("%s", self->err);
	EXPECT_STREQ("eu-central-1", self->c.region);
	hc_creds_release(&self->c);
	EXPECT_EQ(-EINVAL, LOOKUP(env_bad));
	EXPECT_NE(NULL, strstr(self->err, "EU West")) TH_LOG("%s", self->err);
	/* the configuration's region beats them all */
	self->b.region_set = true;
	strcpy(self->b.region, "ca-central-1");
	ASSERT_EQ(0, LOOKUP(env_r));
	EXPECT_STREQ("ca-central-1", self->c.region);
}

TEST_F(chain, profiles)
{
	char *env_def[] = { self->home, "AWS_EC2_METADATA_DISABLED=true", NULL };
	char *env_dev[] = { self->home, "AWS_PROFILE=dev", NULL };
	char *env_nope[] = { self->home, "AWS_PROFILE=nope", NULL };
	char *env_half[] = { self->home, "AWS_PROFILE=half", NULL };
	char *env_proc[] = { self->home, "AWS_PROFILE=proc", NULL };
	char *env_proc_sts[] = { self->home, "AWS_PROFILE=proc", self->sts, NULL };
	char text[1024];

	put(self->kfile, creds_file, 0600);
	ASSERT_EQ(0, LOOKUP(env_def)) TH_LOG("%s", self->err);
	EXPECT_STREQ("default", self->c.profile);
	hc_creds_release(&self->c);
	ASSERT_EQ(0, LOOKUP(env_dev)) TH_LOG("%s", self->err);
	EXPECT_STREQ("AKIDFILEDEV", self->c.access_key);
	EXPECT_STREQ("tokenfiledev", self->c.session_token);
	EXPECT_STREQ("dev", self->c.profile);
	hc_creds_release(&self->c);
	EXPECT_EQ(-ENOENT, LOOKUP(env_nope));
	EXPECT_NE(NULL, strstr(self->err, "AWS_PROFILE=nope: no such profile"))
		TH_LOG("%s", self->err);
	EXPECT_EQ(-EINVAL, LOOKUP(env_half));
	EXPECT_STREQ("profile [half]: needs aws_access_key_id and aws_secret_access_key",
		     self->err);

	/* a profile of ~/.aws/config only, with a credential_process */
	snprintf(text, sizeof(text),
		 "[profile proc]\nregion = ap-south-1\n"
		 "credential_process = printf '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROC\", \"SecretAccessKey\": \"%%s\", \"SessionToken\": \"tokproc\"}' \"$HOME\"\n");
	put(self->cfile, text, 0600);
	ASSERT_EQ(0, LOOKUP(env_proc)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_PROCESS, self->c.source);
	EXPECT_STREQ("AKIDPROC", self->c.access_key);
	EXPECT_STREQ(self->dir, self->c.secret_key);	/* its env is ours */
	EXPECT_STREQ("tokproc", self->c.session_token);
	EXPECT_STREQ("ap-south-1", self->c.region);
	EXPECT_EQ(NULL, self->c.provider);	/* no Expiration: static */
	hc_creds_release(&self->c);

	put(self->cfile, "[profile proc]\ncredential_process = echo no >&2; exit 3\n", 0600);
	EXPECT_EQ(-EACCES, LOOKUP(env_proc));
	EXPECT_NE(NULL, strstr(self->err, "exit status 3")) TH_LOG("%s", self->err);

	/* an assume-role profile: its source's keys sign AssumeRole; its own
	 * keys are not the credentials (they were, before role_arn was read) */
	put(self->cfile, "[profile proc]\nrole_arn = " ROLE "\nsource_profile = default\n"
	    "aws_access_key_id = AKIDSOURCE\naws_secret_access_key = S\n", 0600);
	ASSERT_EQ(0, LOOKUP(env_proc_sts)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_ASSUME_ROLE, self->c.source);
	EXPECT_STREQ("ASIAROLE1", self->c.access_key);
	EXPECT_STREQ("AKIDFILEDEFAULT", F.calls[0].ak);
	EXPECT_TRUE(F.calls[0].sig_ok) TH_LOG("%s", F.calls[0].why);
	hc_creds_release(&self->c);

	/* a broken file is an error, with its line */
	put(self->kfile, "[default]\naws_access_key_id A\n", 0600);
	EXPECT_EQ(-EINVAL, LOOKUP(env_def));
	EXPECT_NE(NULL, strstr(self->err, "credentials:2:")) TH_LOG("%s", self->err);
}

TEST_F(chain, web_identity_errors)
{
	char web[200], arn[] = "AWS_ROLE_ARN=" ROLE;
	char *env_half[] = { self->home, arn, NULL };
	char *env_web[] = { self->home, web, arn, self->sts, NULL };

	EXPECT_EQ(-EINVAL, LOOKUP(env_half));
	EXPECT_STREQ("environment: AWS_ROLE_ARN is set but AWS_WEB_IDENTITY_TOKEN_FILE is not",
		     self->err);
	snprintf(web, sizeof(web), "AWS_WEB_IDENTITY_TOKEN_FILE=%s/none", self->dir);
	EXPECT_EQ(-ENOENT, LOOKUP(env_web));
	EXPECT_NE(NULL, strstr(self->err, "/none")) TH_LOG("%s", self->err);
	snprintf(web, sizeof(web), "AWS_WEB_IDENTITY_TOKEN_FILE=%s", self->jwt);
	F.sts_deny = true;
	EXPECT_EQ(-EACCES, LOOKUP(env_web));
	EXPECT_NE(NULL, strstr(self->err, "STS: AccessDenied: Not authorized"))
		TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, ROLE)) TH_LOG("%s", self->err);
}

TEST_F(chain, imds_absent_is_quick)
{
	char *env[] = { self->home, "AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:1",
			NULL };
	char *env_norole[] = { self->home, self->imds, NULL };
	double t = hc_now();

	ASSERT_EQ(0, LOOKUP(env));
	EXPECT_EQ(HC_CREDS_ANONYMOUS, self->c.source);
	EXPECT_LT(hc_now() - t, 2.0);
	hc_creds_release(&self->c);
	F.imds_no_role = true;
	ASSERT_EQ(0, LOOKUP(env_norole));
	EXPECT_EQ(HC_CREDS_ANONYMOUS, self->c.source);
	EXPECT_EQ(1, F.imds_token_calls);
}

TEST_F(chain, refresh_ahead_of_expiry)
{
	char web[200], arn[] = "AWS_ROLE_ARN=" ROLE;
	char *env_web[] = { self->home, web, arn, self->sts, NULL };
	struct hc_creds copy;

	snprintf(web, sizeof(web), "AWS_WEB_IDENTITY_TOKEN_FILE=%s", self->jwt);
	F.sts_ttl = 3600;
	ASSERT_EQ(0, LOOKUP(env_web)) TH_LOG("%s", self->err);
	hc_creds_hold(&copy, &self->c);
	/* far from expiry: nothing fetched */
	ASSERT_EQ(0, hc_creds_current(&copy, self->err, sizeof(self->err)));
	EXPECT_EQ(1, F.sts_calls);
	EXPECT_STREQ("ststoken1", copy.session_token);

	/* a set that expires within HC_CRED_REFRESH_AHEAD: refreshed */
	hc_creds_release(&copy);
	hc_creds_release(&self->c);
	F.sts_ttl = HC_CRED_REFRESH_AHEAD - 60;
	ASSERT_EQ(0, LOOKUP(env_web)) TH_LOG("%s", self->err);	/* call 2 */
	F.sts_ttl = 3600;
	hc_creds_hold(&copy, &self->c);
	ASSERT_EQ(0, hc_creds_current(&copy, self->err, sizeof(self->err)));
	EXPECT_EQ(3, F.sts_calls);
	EXPECT_STREQ("ststoken3", copy.session_token);
	EXPECT_STREQ("ASIASTS3", copy.access_key);
	/* the other copy follows without a fetch of its own */
	ASSERT_EQ(0, hc_creds_current(&self->c, self->err, sizeof(self->err)));
	EXPECT_EQ(3, F.sts_calls);
	EXPECT_STREQ("ststoken3", self->c.session_token);

	/* refused as expired: the next use fetches, once for all copies */
	EXPECT_TRUE(hc_creds_expired(&copy));
	EXPECT_TRUE(hc_creds_expired(&self->c));
	ASSERT_EQ(0, hc_creds_current(&copy, self->err, sizeof(self->err)));
	ASSERT_EQ(0, hc_creds_current(&self->c, self->err, sizeof(self->err)));
	EXPECT_EQ(4, F.sts_calls);
	EXPECT_STREQ("ststoken4", self->c.session_token);

	/* a failed refresh keeps a set still valid, fails an expired one */
	F.sts_deny = true;
	EXPECT_TRUE(hc_creds_expired(&copy));
	EXPECT_EQ(-EACCES, hc_creds_current(&copy, self->err, sizeof(self->err)));
	hc_creds_release(&copy);

	/* static credentials: nothing to refresh, no retry */
	hc_creds_release(&self->c);
	strcpy(self->b.access_key, "AKIDCONF");
	strcpy(self->b.secret_key, "secretconf");
	ASSERT_EQ(0, LOOKUP(env_web));
	EXPECT_FALSE(hc_creds_expired(&self->c));
}

/* IMDS credentials about to expire are fetched again through a new token. */
TEST_F(chain, imds_refresh)
{
	char *env[] = { self->home, self->imds, NULL };

	F.imds_ttl = 100;
	ASSERT_EQ(0, LOOKUP(env)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_IMDS, self->c.source);
	F.imds_ttl = 3600;
	ASSERT_EQ(0, hc_creds_current(&self->c, self->err, sizeof(self->err)));
	EXPECT_EQ(2, F.imds_cred_calls);
	EXPECT_EQ(2, F.imds_token_calls);
	EXPECT_STREQ("imdstoken2", self->c.session_token);
}

static struct hcs3 *client(FIXTURE_DATA(chain) *self)
{
	struct hcs3_opts o = { .timeout_connect = 2, .timeout_request = 5 };
	struct hcs3 *c = NULL;

	if (hcs3_new(&self->b, &self->c, &o, &c, self->err, sizeof(self->err)))
		fprintf(stderr, "hcs3_new: %s\n", self->err);
	return c;
}

/* ExpiredToken: one retry with fresh credentials, then the answer. */
TEST_F(chain, s3_expired_token_retry)
{
	char web[200], arn[] = "AWS_ROLE_ARN=" ROLE;
	char *env_web[] = { self->home, web, arn, self->sts, NULL };
	char buf[8];
	struct hcs3 *c;

	snprintf(web, sizeof(web), "AWS_WEB_IDENTITY_TOKEN_FILE=%s", self->jwt);
	ASSERT_EQ(0, LOOKUP(env_web)) TH_LOG("%s", self->err);
	c = client(self);
	ASSERT_NE(NULL, c);

	F.s3_expire = 1;
	ASSERT_EQ(0, hcs3_get_range(c, "bkt", "obj", 0, 5, NULL, buf,
				    self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(2, F.s3_calls);
	EXPECT_EQ(2, F.sts_calls);
	EXPECT_STREQ("ststoken2", F.s3_token);

	/* 403 ExpiredToken likewise; a second refusal is the answer */
	F.s3_expire = 2;
	F.s3_expire_403 = true;
	EXPECT_NE(0, hcs3_get_range(c, "bkt", "obj", 0, 5, NULL, buf,
				    self->err, sizeof(self->err)));
	EXPECT_EQ(4, F.s3_calls);
	EXPECT_EQ(3, F.sts_calls);
	EXPECT_NE(NULL, strstr(self->err, "ExpiredToken")) TH_LOG("%s", self->err);
	hcs3_free(c);

	/* static credentials: no retry at all */
	hc_creds_release(&self->c);
	strcpy(self->b.access_key, "AKIDCONF");
	strcpy(self->b.secret_key, "secretconf");
	ASSERT_EQ(0, LOOKUP(env_web));
	c = client(self);
	ASSERT_NE(NULL, c);
	F.s3_expire = 1;
	EXPECT_NE(0, hcs3_get_range(c, "bkt", "obj", 0, 5, NULL, buf,
				    self->err, sizeof(self->err)));
	EXPECT_EQ(5, F.s3_calls);
	hcs3_free(c);
}

TEST_F(chain, s3_anonymous_unsigned)
{
	char *env[] = { self->home, "AWS_ACCESS_KEY_ID=A", "AWS_SECRET_ACCESS_KEY=S",
			NULL };
	char buf[8];
	struct hcs3 *c;

	self->b.anonymous = true;
	ASSERT_EQ(0, LOOKUP(env));
	EXPECT_EQ(HC_CREDS_ANONYMOUS, self->c.source);
	c = client(self);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, hcs3_get_range(c, "bkt", "obj", 0, 5, NULL, buf,
				    self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_FALSE(F.s3_signed);
	EXPECT_STREQ("", F.s3_token);
	hcs3_free(c);
}

/* The S3 endpoint, in the AWS SDKs' order, when the backend gives none. */
TEST_F(chain, endpoint_order)
{
	char s3e[96], glob[96];
	char *env_none[] = { self->home, "AWS_REGION=eu-west-3", NULL };
	char *env_glob[] = { self->home, glob, NULL };
	char *env_both[] = { self->home, glob, s3e, NULL };
	char *env_ign[] = { self->home, glob, s3e,
			    "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true", NULL };
	char *env_unign[] = { self->home, glob,
			      "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=false", NULL };
	char *env_dev[] = { self->home, "AWS_PROFILE=dev", NULL };
	char *env_bad[] = { self->home, "AWS_ENDPOINT_URL_S3=ftp://x", NULL };
	char buf[8];
	struct hcs3 *c;

	snprintf(s3e, sizeof(s3e), "AWS_ENDPOINT_URL_S3=http://127.0.0.1:%u", F.port);
	strcpy(glob, "AWS_ENDPOINT_URL=http://global.example:9000");
	self->b.endpoint[0] = '\0';

	/* nothing anywhere: AWS's regional endpoint */
	ASSERT_EQ(0, LOOKUP(env_none)) TH_LOG("%s", self->err);
	EXPECT_STREQ("https://s3.eu-west-3.amazonaws.com", self->c.endpoint);
	EXPECT_EQ(HC_ENDPOINT_DEFAULT, self->c.endpoint_source);
	hc_creds_release(&self->c);

	/* the profile's endpoint_url; its services section beats it */
	put(self->cfile,
	    "[profile dev]\nendpoint_url = http://profile.example\n"
	    "aws_access_key_id = A\naws_secret_access_key = S\n", 0600);
	ASSERT_EQ(0, LOOKUP(env_dev)) TH_LOG("%s", self->err);
	EXPECT_STREQ("http://profile.example", self->c.endpoint);
	EXPECT_EQ(HC_ENDPOINT_PROFILE, self->c.endpoint_source);
	hc_creds_release(&self->c);
	put(self->cfile,
	    "[services local]\ns3 =\n  addressing_style = path\n"
	    "  endpoint_url = http://services.example:7480\n"
	    "sts =\n  endpoint_url = http://sts.example\n"
	    "[profile dev]\nendpoint_url = http://profile.example\n"
	    "services = local\n"
	    "aws_access_key_id = A\naws_secret_access_key = S\n", 0600);
	ASSERT_EQ(0, LOOKUP(env_dev)) TH_LOG("%s", self->err);
	EXPECT_STREQ("http://services.example:7480", self->c.endpoint);
	EXPECT_EQ(HC_ENDPOINT_SERVICES, self->c.endpoint_source);
	hc_creds_release(&self->c);

	/* the default profile: the global environment beats the files */
	put(self->cfile,
	    "[default]\nendpoint_url = http://profile.example\n"
	    "services = local\n"
	    "[services local]\ns3 =\n  endpoint_url = http://services.example\n",
	    0600);
	ASSERT_EQ(0, LOOKUP(env_glob)) TH_LOG("%s", self->err);
	EXPECT_STREQ("http://global.example:9000", self->c.endpoint);
	EXPECT_EQ(HC_ENDPOINT_ENV, self->c.endpoint_source);
	hc_creds_release(&self->c);
	/* ... and the S3 one beats the global one */
	ASSERT_EQ(0, LOOKUP(env_both)) TH_LOG("%s", self->err);
	EXPECT_STREQ(s3e + strlen("AWS_ENDPOINT_URL_S3="), self->c.endpoint);
	EXPECT_EQ(HC_ENDPOINT_ENV_S3, self->c.endpoint_source);
	/* the client goes there */
	c = client(self);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, hcs3_get_range(c, "bkt", "obj", 0, 5, NULL, buf,
				    self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(1, F.s3_calls);
	hcs3_free(c);
	hc_creds_release(&self->c);

	/* ignore_configured_endpoint_urls: the default, env or profile */
	ASSERT_EQ(0, LOOKUP(env_ign)) TH_LOG("%s", self->err);
	EXPECT_STREQ("https://s3.us-east-1.amazonaws.com", self->c.endpoint);
	EXPECT_EQ(HC_ENDPOINT_DEFAULT, self->c.endpoint_source);
	hc_creds_release(&self->c);
	put(self->cfile,
	    "[default]\nendpoint_url = http://profile.example\n"
	    "ignore_configured_endpoint_urls = true\n", 0600);
	ASSERT_EQ(0, LOOKUP(env_glob)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_ENDPOINT_DEFAULT, self->c.endpoint_source);
	hc_creds_release(&self->c);
	ASSERT_EQ(0, LOOKUP(env_unign)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_ENDPOINT_ENV, self->c.endpoint_source);	/* env wins */
	hc_creds_release(&self->c);

	/* the configuration's endpoint beats them all, ignore or not */
	strcpy(self->b.endpoint, "http://config.example");
	ASSERT_EQ(0, LOOKUP(env_ign)) TH_LOG("%s", self->err);
	EXPECT_STREQ("http://config.example", self->c.endpoint);
	EXPECT_EQ(HC_ENDPOINT_CONFIG, self->c.endpoint_source);
	hc_creds_release(&self->c);
	self->b.endpoint[0] = '\0';

	/* malformed: an error naming the source */
	unlink(self->cfile);
	EXPECT_EQ(-EINVAL, LOOKUP(env_bad));
	EXPECT_STREQ("AWS_ENDPOINT_URL_S3: expected an http:// or https:// URL, got \"ftp://x\"",
		     self->err);
	put(self->cfile, "[default]\nendpoint_url = s3.example\n", 0600);
	EXPECT_EQ(-EINVAL, LOOKUP(env_none));
	EXPECT_NE(NULL, strstr(self->err, "config:2:")) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "endpoint_url")) TH_LOG("%s", self->err);
	put(self->cfile, "[default]\nservices = nope\n", 0600);
	EXPECT_EQ(-ENOENT, LOOKUP(env_none));
	EXPECT_NE(NULL, strstr(self->err, "no [services nope]")) TH_LOG("%s", self->err);
	put(self->cfile, "[default]\nservices = l\n[services l]\ns3 =\n  endpoint_url = x\n", 0600);
	EXPECT_EQ(-EINVAL, LOOKUP(env_none));
	EXPECT_NE(NULL, strstr(self->err, "[services l] s3 endpoint_url")) TH_LOG("%s", self->err);
}

/* STS's endpoint follows the same order, with its own variable and section. */
TEST_F(chain, sts_endpoint)
{
	char web[200], arn[] = "AWS_ROLE_ARN=" ROLE, glob[96], text[512];
	char *env_glob[] = { self->home, web, arn, glob, NULL };
	char *env_both[] = { self->home, web, arn, glob,
			     "AWS_ENDPOINT_URL_STS=http://127.0.0.1:1/", NULL };
	char *env_prof[] = { self->home, web, arn, "AWS_PROFILE=irsa", NULL };

	snprintf(web, sizeof(web), "AWS_WEB_IDENTITY_TOKEN_FILE=%s", self->jwt);
	snprintf(glob, sizeof(glob), "AWS_ENDPOINT_URL=http://127.0.0.1:%u/sts/",
		 F.port);
	/* the global variable serves STS too */
	ASSERT_EQ(0, LOOKUP(env_glob)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_WEB_IDENTITY, self->c.source);
	EXPECT_EQ(1, F.sts_calls);
	hc_creds_release(&self->c);
	/* AWS_ENDPOINT_URL_STS beats it: a closed port, refused */
	EXPECT_NE(0, LOOKUP(env_both));
	EXPECT_NE(NULL, strstr(self->err, "127.0.0.1:1/")) TH_LOG("%s", self->err);
	EXPECT_EQ(1, F.sts_calls);
	/* the profile's [services NAME] sts endpoint_url; s3's is not STS's */
	snprintf(text, sizeof(text),
		 "[profile irsa]\nservices = ep\nendpoint_url = http://127.0.0.1:1/\n"
		 "[services ep]\ns3 =\n  endpoint_url = http://127.0.0.1:1/\n"
		 "sts =\n  endpoint_url = http://127.0.0.1:%u/sts/\n", F.port);
	put(self->cfile, text, 0600);
	ASSERT_EQ(0, LOOKUP(env_prof)) TH_LOG("%s", self->err);
	EXPECT_EQ(2, F.sts_calls);
	/* ... while the backend's endpoint stays the configuration's */
	EXPECT_EQ(HC_ENDPOINT_CONFIG, self->c.endpoint_source);
}

/*
 * STS is reached through the proxy of libcurl's variables, as S3 and the
 * AWS CLI's STS calls are (a node that reaches AWS only through a proxy);
 * the instance metadata service never is: it is link-local, and a proxy
 * must not see its tokens.  The fake plays the proxy: the STS host name
 * does not resolve, so only a proxied request can reach it.
 */
TEST_F(chain, sts_through_proxy)
{
	char web[200], arn[] = "AWS_ROLE_ARN=" ROLE, proxy[64];
	char sts[] = "AWS_ENDPOINT_URL_STS=http://sts.hc-proxy-test.invalid/sts/";
	char *env_web[] = { self->home, web, arn, sts, NULL };
	char *env_imds[] = { self->home, self->imds, NULL };

	unsetenv("no_proxy");
	unsetenv("NO_PROXY");
	snprintf(web, sizeof(web), "AWS_WEB_IDENTITY_TOKEN_FILE=%s", self->jwt);
	snprintf(proxy, sizeof(proxy), "http://127.0.0.1:%u", F.port);
	ASSERT_EQ(0, setenv("http_proxy", proxy, 1));
	ASSERT_EQ(0, LOOKUP(env_web)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_WEB_IDENTITY, self->c.source);
	EXPECT_EQ(1, F.sts_calls);
	EXPECT_EQ(1, F.proxied);
	hc_creds_release(&self->c);
	/* a proxy that answers nothing: IMDS goes direct all the same */
	ASSERT_EQ(0, setenv("http_proxy", "http://127.0.0.1:1", 1));
	ASSERT_EQ(0, LOOKUP(env_imds)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_IMDS, self->c.source);
	EXPECT_EQ(1, F.imds_cred_calls);
	EXPECT_EQ(1, F.proxied);
	unsetenv("http_proxy");
}

/*
 * A credential_process that hangs is killed after the backend's
 * credential_process_timeout, with its children: the lookup fails with
 * -ETIMEDOUT naming the profile and the command, in about that time.
 */
TEST_F(chain, process_timeout)
{
	char *env_proc[] = { self->home, "AWS_PROFILE=slow", NULL };
	char text[512], pidf[128];
	double t;
	FILE *f;
	int pid = 0, i;

	snprintf(pidf, sizeof(pidf), "%s/sleeper.pid", self->dir);
	snprintf(text, sizeof(text),
		 "[profile slow]\ncredential_process = sleep 30 & echo $! > %s; wait\n",
		 pidf);
	put(self->cfile, text, 0600);
	self->b.process_timeout = 1;
	t = hc_now();
	EXPECT_EQ(-ETIMEDOUT, LOOKUP(env_proc));
	t = hc_now() - t;
	EXPECT_GE(t, 0.9);
	EXPECT_LT(t, 5.0);
	EXPECT_NE(NULL, strstr(self->err, "profile [slow] credential_process \"sleep 30"))
		TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "no answer within 1 s"))
		TH_LOG("%s", self->err);
	/* the shell's child went with it (reaped by init, so poll a little) */
	f = fopen(pidf, "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%d", &pid));
	fclose(f);
	for (i = 0; i < 200 && !kill(pid, 0); i++)
		usleep(10000);
	EXPECT_NE(0, kill(pid, 0)) TH_LOG("sleep %d still runs", pid);

	/* stdout closed, the process lingers: killed too, same error */
	put(self->cfile, "[profile slow]\ncredential_process = exec >&-; sleep 30\n", 0600);
	t = hc_now();
	EXPECT_EQ(-ETIMEDOUT, LOOKUP(env_proc));
	EXPECT_LT(hc_now() - t, 5.0);

	/* a quick one is not affected; its output is checked */
	snprintf(text, sizeof(text),
		 "[profile slow]\ncredential_process = echo '{\"Version\": 1, \"AccessKeyId\": \"A\", \"SecretAccessKey\": \"S\", \"Expiration\": \"2020-01-01T00:00:00Z\"}'\n");
	put(self->cfile, text, 0600);
	EXPECT_EQ(-EINVAL, LOOKUP(env_proc));
	EXPECT_NE(NULL, strstr(self->err, "profile [slow] credential_process \"echo"))
		TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "Expiration has passed")) TH_LOG("%s", self->err);
	/* too much output: said so (not the SIGPIPE that follows) */
	put(self->cfile, "[profile slow]\ncredential_process = yes\n", 0600);
	EXPECT_EQ(-EFBIG, LOOKUP(env_proc));
	EXPECT_NE(NULL, strstr(self->err, "output over 64 KiB")) TH_LOG("%s", self->err);
	put(self->cfile, "[profile slow]\ncredential_process = echo '{\"Version\": 2}'\n", 0600);
	EXPECT_EQ(-EINVAL, LOOKUP(env_proc));
	EXPECT_NE(NULL, strstr(self->err, ": \"Version\" is not 1")) TH_LOG("%s", self->err);
}

/* ------------------------------------------------- assume-role profiles */

#define ROLE_A	"arn:aws:iam::123456789012:role/a"
#define ROLE_B	"arn:aws:iam::210987654321:role/b"
#define SRC_KEYS "[src]\naws_access_key_id = AKIDSRC\naws_secret_access_key = secretsrc\n"

static const struct sts_call *call(int n)
{
	return &F.calls[(n - 1) % CALLS_MAX];
}

/*
 * STS call @n was an AssumeRole of @role signed with key @ak (and its
 * session token @tok as a signed X-Amz-Security-Token, "" for none) for
 * STS in @region: the scope of its Authorization names them and today's
 * date, and the fake found the signature right over what it received.
 */
static void expect_assume(struct __test_metadata *_metadata, int n,
			  const char *role, const char *ak, const char *tok,
			  const char *region)
{
	const struct sts_call *k = call(n);
	struct tm tm = { 0 };
	time_t t;

	ASSERT_LE(n, F.sts_calls);
	EXPECT_STREQ("AssumeRole", k->action) TH_LOG("call %d", n);
	EXPECT_STREQ("2011-06-15", k->version);
	EXPECT_STREQ(role, k->role) TH_LOG("call %d", n);
	EXPECT_STREQ(ak, k->ak) TH_LOG("call %d: %s", n, k->why);
	EXPECT_STREQ(region, k->region) TH_LOG("call %d", n);
	EXPECT_STREQ("sts", k->service) TH_LOG("call %d", n);
	EXPECT_STREQ(tok, k->token) TH_LOG("call %d", n);
	EXPECT_TRUE(k->sig_ok) TH_LOG("call %d: %s", n, k->why);
	EXPECT_EQ(0, strncmp(k->date, k->amz_date, 8)) TH_LOG("%s %s", k->date, k->amz_date);
	ASSERT_NE(NULL, strptime(k->amz_date, "%Y%m%dT%H%M%SZ", &tm));
	t = timegm(&tm);
	EXPECT_LT(labs((long)(t - time(NULL))), 300) TH_LOG("X-Amz-Date %s", k->amz_date);
	EXPECT_NE(NULL, strstr(k->signed_headers, "host")) TH_LOG("%s", k->signed_headers);
	EXPECT_NE(NULL, strstr(k->signed_headers, "x-amz-date"));
	if (*tok)
		EXPECT_NE(NULL, strstr(k->signed_headers, "x-amz-security-token"))
			TH_LOG("%s", k->signed_headers);
}

/* source_profile with static keys; the profile's own keys as its source. */
TEST_F(chain, role_source_profile)
{
	char *env[] = { self->home, self->sts, "AWS_PROFILE=role", NULL };
	char *env_min[] = { self->home, self->sts, "AWS_PROFILE=min", NULL };
	char *env_self[] = { self->home, self->sts, "AWS_PROFILE=self", NULL };
	char buf[8];
	struct hcs3 *c;

	put(self->kfile, SRC_KEYS, 0600);
	put(self->cfile,
	    "[profile role]\nregion = eu-west-2\nrole_arn = " ROLE_A "\n"
	    "source_profile = src\nrole_session_name = sess-1\n"
	    "external_id = ext/1 x&y\nduration_seconds = 1800\n"
	    "[profile min]\nrole_arn = " ROLE_A "\nsource_profile = src\n"
	    "[profile self]\nrole_arn = " ROLE_B "\nsource_profile = self\n"
	    "aws_access_key_id = AKIDFILEDEFAULT\n"
	    "aws_secret_access_key = secretfiledefault\n", 0600);
	ASSERT_EQ(0, LOOKUP(env)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_ASSUME_ROLE, self->c.source);
	EXPECT_STREQ("role", self->c.profile);
	EXPECT_STREQ("ASIAROLE1", self->c.access_key);
	EXPECT_STREQ("rolesecret1", self->c.secret_key);
	EXPECT_STREQ("roletoken1", self->c.session_token);
	EXPECT_STREQ("eu-west-2", self->c.region);
	EXPECT_NE(NULL, self->c.provider);
	EXPECT_LT(time(NULL) + 3000, self->c.expiration);
	ASSERT_EQ(1, F.sts_calls);
	expect_assume(_metadata, 1, ROLE_A, "AKIDSRC", "", "eu-west-2");
	EXPECT_STREQ("sess-1", call(1)->session);
	EXPECT_STREQ("ext/1 x&y", call(1)->external_id) TH_LOG("%s", F.sts_body);
	EXPECT_STREQ("1800", call(1)->duration);
	/* S3 is signed with the role's credentials */
	c = client(self);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, hcs3_get_range(c, "bkt", "obj", 0, 5, NULL, buf,
				    self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_STREQ("roletoken1", F.s3_token);
	hcs3_free(c);
	hc_creds_release(&self->c);

	/* the SDKs' defaults: a session name of its own, no ExternalId, no
	 * DurationSeconds (STS's one hour) */
	ASSERT_EQ(0, LOOKUP(env_min)) TH_LOG("%s", self->err);
	expect_assume(_metadata, 2, ROLE_A, "AKIDSRC", "", "us-east-1");
	EXPECT_EQ(0, strncmp(call(2)->session, "hypercache-", 11)) TH_LOG("%s", call(2)->session);
	EXPECT_FALSE(call(2)->has_external_id);
	EXPECT_FALSE(call(2)->has_duration);
	hc_creds_release(&self->c);

	/* its own source_profile: its keys sign the call, the role is the answer */
	ASSERT_EQ(0, LOOKUP(env_self)) TH_LOG("%s", self->err);
	expect_assume(_metadata, 3, ROLE_B, "AKIDFILEDEFAULT", "", "us-east-1");
	EXPECT_STREQ("ASIAROLE3", self->c.access_key);
	EXPECT_STREQ("self", self->c.profile);
}

/* Role chaining, and the other kinds of source profile. */
TEST_F(chain, role_chain)
{
	char *env_a[] = { self->home, self->sts, "AWS_PROFILE=a", NULL };
	char *env_k[] = { self->home, self->sts, "AWS_PROFILE=k", NULL };
	char *env_p[] = { self->home, self->sts, "AWS_PROFILE=p", NULL };
	char *env_w[] = { self->home, self->sts, "AWS_PROFILE=w", NULL };
	char text[4096];

	put(self->kfile, SRC_KEYS, 0600);
	snprintf(text, sizeof(text),
		 "[profile a]\nrole_arn = " ROLE_A "\nsource_profile = b\n"
		 "[profile b]\nrole_arn = " ROLE_B "\nsource_profile = src\n"
		 "[profile k]\nrole_arn = " ROLE_A "\nsource_profile = kb\n"
		 "[profile kb]\nrole_arn = " ROLE_B "\nsource_profile = src\n"
		 "aws_access_key_id = AKIDFILEDEFAULT\n"
		 "aws_secret_access_key = secretfiledefault\n"
		 "[profile p]\nrole_arn = " ROLE_A "\nsource_profile = proc\n"
		 "[profile proc]\ncredential_process = echo '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROC\", \"SecretAccessKey\": \"secretproc\"}'\n"
		 "[profile w]\nrole_arn = " ROLE_A "\nsource_profile = web\n"
		 "[profile web]\nrole_arn = " ROLE "\nweb_identity_token_file = %s\n"
		 "[profile h]\nrole_arn = " ROLE_A "\nsource_profile = half\n"
		 "[profile half]\naws_access_key_id = AKIDHALF\n"
		 "[profile e]\nrole_arn = " ROLE_A "\nsource_profile = empty\n"
		 "[profile empty]\nregion = eu-west-1\n",
		 self->jwt);
	put(self->cfile, text, 0600);

	/* a source with half a key pair, or no credentials at all */
	env_a[2] = "AWS_PROFILE=h";
	EXPECT_EQ(-EINVAL, LOOKUP(env_a));
	EXPECT_STREQ("profile [half]: needs aws_access_key_id and aws_secret_access_key", self->err);
	env_a[2] = "AWS_PROFILE=e";
	EXPECT_EQ(-EINVAL, LOOKUP(env_a));
	EXPECT_STREQ("profile [e]: its source_profile [empty] has no credentials (aws_access_key_id, credential_process, role_arn or web_identity_token_file)",
		     self->err);
	EXPECT_EQ(0, F.sts_calls);
	env_a[2] = "AWS_PROFILE=a";

	/* a -> b -> src: b's role first, then a's signed with b's temporary keys */
	ASSERT_EQ(0, LOOKUP(env_a)) TH_LOG("%s", self->err);
	ASSERT_EQ(2, F.sts_calls);
	expect_assume(_metadata, 1, ROLE_B, "AKIDSRC", "", "us-east-1");
	expect_assume(_metadata, 2, ROLE_A, "ASIAROLE1", "roletoken1", "us-east-1");
	EXPECT_STREQ("ASIAROLE2", self->c.access_key);
	EXPECT_STREQ("a", self->c.profile);
	hc_creds_release(&self->c);

	/* a source profile's keys win over its own role_arn (botocore) */
	ASSERT_EQ(0, LOOKUP(env_k)) TH_LOG("%s", self->err);
	ASSERT_EQ(3, F.sts_calls);
	expect_assume(_metadata, 3, ROLE_A, "AKIDFILEDEFAULT", "", "us-east-1");
	hc_creds_release(&self->c);

	/* a source profile's credential_process */
	ASSERT_EQ(0, LOOKUP(env_p)) TH_LOG("%s", self->err);
	ASSERT_EQ(4, F.sts_calls);
	expect_assume(_metadata, 4, ROLE_A, "AKIDPROC", "", "us-east-1");
	hc_creds_release(&self->c);

	/* a source profile's web identity: unsigned, then AssumeRole with it */
	ASSERT_EQ(0, LOOKUP(env_w)) TH_LOG("%s", self->err);
	ASSERT_EQ(6, F.sts_calls);
	EXPECT_STREQ("AssumeRoleWithWebIdentity", call(5)->action);
	EXPECT_STREQ(ROLE, call(5)->role);
	expect_assume(_metadata, 6, ROLE_A, "ASIASTS5", "ststoken5", "us-east-1");
	EXPECT_EQ(HC_CREDS_ASSUME_ROLE, self->c.source);
}

/* credential_source: Environment, Ec2InstanceMetadata; the rest refused. */
TEST_F(chain, role_credential_source)
{
#define ENV_KEYS "AWS_ACCESS_KEY_ID=AKIDENV", "AWS_SECRET_ACCESS_KEY=secretenv", \
		 "AWS_SESSION_TOKEN=tokenenv"
	char *env_keys[] = { self->home, self->sts, "AWS_PROFILE=envrole", ENV_KEYS, NULL };
	char *env_chain[] = { self->home, self->sts, "AWS_PROFILE=top", ENV_KEYS, NULL };
	char *env_static[] = { self->home, self->sts, "AWS_PROFILE=static", ENV_KEYS, NULL };
	char *env_nokeys[] = { self->home, self->sts, "AWS_PROFILE=envrole", NULL };
	char *env_imds[] = { self->home, self->sts, self->imds, "AWS_PROFILE=imdsrole", NULL };
	char *env_noimds[] = { self->home, self->sts, "AWS_PROFILE=imdsrole",
			       "AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:1", NULL };
	char *env_ecs[] = { self->home, self->sts, "AWS_PROFILE=ecs", NULL };
	char *env_bad[] = { self->home, self->sts, "AWS_PROFILE=bad", NULL };
	char *env_both[] = { self->home, self->sts, "AWS_PROFILE=both", NULL };
	char *env_neither[] = { self->home, self->sts, "AWS_PROFILE=neither", NULL };
#undef ENV_KEYS

	put(self->kfile, SRC_KEYS, 0600);
	put(self->cfile,
	    "[profile envrole]\nrole_arn = " ROLE_A "\ncredential_source = Environment\n"
	    "[profile top]\nrole_arn = " ROLE_B "\nsource_profile = envrole\n"
	    "[profile static]\nrole_arn = " ROLE_A "\nsource_profile = src\n"
	    "[profile imdsrole]\nrole_arn = " ROLE_A "\ncredential_source = ec2instancemetadata\n"
	    "[profile ecs]\nrole_arn = " ROLE_A "\ncredential_source = EcsContainer\n"
	    "[profile bad]\nrole_arn = " ROLE_A "\ncredential_source = Lambda\n"
	    "[profile both]\nrole_arn = " ROLE_A "\ncredential_source = Environment\n"
	    "source_profile = src\n"
	    "[profile neither]\nrole_arn = " ROLE_A "\n", 0600);

	/* the environment's keys are the role's source, not the credentials */
	ASSERT_EQ(0, LOOKUP(env_keys)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_ASSUME_ROLE, self->c.source);
	EXPECT_STREQ("ASIAROLE1", self->c.access_key);
	expect_assume(_metadata, 1, ROLE_A, "AKIDENV", "tokenenv", "us-east-1");
	hc_creds_release(&self->c);
	/* ... at the end of a chain too */
	ASSERT_EQ(0, LOOKUP(env_chain)) TH_LOG("%s", self->err);
	ASSERT_EQ(3, F.sts_calls);
	expect_assume(_metadata, 2, ROLE_A, "AKIDENV", "tokenenv", "us-east-1");
	expect_assume(_metadata, 3, ROLE_B, "ASIAROLE2", "roletoken2", "us-east-1");
	hc_creds_release(&self->c);
	/* a role whose source is not the environment: the keys win (source 2) */
	ASSERT_EQ(0, LOOKUP(env_static)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_ENV, self->c.source);
	EXPECT_STREQ("AKIDENV", self->c.access_key);
	EXPECT_EQ(3, F.sts_calls);
	hc_creds_release(&self->c);
	EXPECT_EQ(-ENOENT, LOOKUP(env_nokeys));
	EXPECT_STREQ("profile [envrole]: credential_source = Environment, but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set",
		     self->err);

	/* the metadata service's role (the value is case-insensitive) */
	ASSERT_EQ(0, LOOKUP(env_imds)) TH_LOG("%s", self->err);
	EXPECT_EQ(1, F.imds_cred_calls);
	expect_assume(_metadata, 4, ROLE_A, "ASIAIMDS1", "imdstoken1", "us-east-1");
	EXPECT_STREQ("ASIAROLE4", self->c.access_key);
	hc_creds_release(&self->c);
	/* named but absent: an error, not anonymous */
	EXPECT_EQ(-ENODEV, LOOKUP(env_noimds));
	EXPECT_NE(NULL, strstr(self->err, "profile [imdsrole]: credential_source = Ec2InstanceMetadata: IMDS"))
		TH_LOG("%s", self->err);

	EXPECT_EQ(-EOPNOTSUPP, LOOKUP(env_ecs));
	EXPECT_STREQ("profile [ecs]: credential_source = EcsContainer: the ECS container credentials endpoint is not supported",
		     self->err);
	EXPECT_EQ(-EINVAL, LOOKUP(env_bad));
	EXPECT_STREQ("profile [bad]: credential_source = Lambda: expected Environment, Ec2InstanceMetadata or EcsContainer",
		     self->err);
	EXPECT_EQ(-EINVAL, LOOKUP(env_both));
	EXPECT_STREQ("profile [both]: role_arn needs exactly one of source_profile and credential_source, not both",
		     self->err);
	EXPECT_EQ(-EINVAL, LOOKUP(env_neither));
	EXPECT_STREQ("profile [neither]: role_arn needs exactly one of source_profile and credential_source, not neither",
		     self->err);
	EXPECT_EQ(4, F.sts_calls);
}

/* Loops and chains too long are refused, naming the chain, before any call. */
TEST_F(chain, role_loop)
{
	char *env_a[] = { self->home, self->sts, "AWS_PROFILE=a", NULL };
	char *env_s[] = { self->home, self->sts, "AWS_PROFILE=s", NULL };
	char *env_m[] = { self->home, self->sts, "AWS_PROFILE=m", NULL };
	char *env_p1[] = { self->home, self->sts, "AWS_PROFILE=p1", NULL };
	char *env_p2[] = { self->home, self->sts, "AWS_PROFILE=p2", NULL };
	char text[4096], want[512];
	size_t n;
	int i;

	n = (size_t)snprintf(text, sizeof(text),
			     "[profile a]\nrole_arn = " ROLE_A "\nsource_profile = b\n"
			     "[profile b]\nrole_arn = " ROLE_B "\nsource_profile = a\n"
			     "[profile s]\nrole_arn = " ROLE_A "\nsource_profile = s\n"
			     "[profile m]\nrole_arn = " ROLE_A "\nsource_profile = nope\n"
			     "[profile ka]\nrole_arn = " ROLE_A "\nsource_profile = kb\n"
			     "aws_access_key_id = AKIDSRC\naws_secret_access_key = secretsrc\n"
			     "[profile kb]\nrole_arn = " ROLE_B "\nsource_profile = ka\n");
	for (i = 1; i < 10; i++)	/* p1 -> p2 -> ... -> p9 -> p10 (keys) */
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "[profile p%d]\nrole_arn = " ROLE_A "\nsource_profile = p%d\n",
				      i, i + 1);
	snprintf(text + n, sizeof(text) - n,
		 "[profile p10]\naws_access_key_id = AKIDSRC\naws_secret_access_key = secretsrc\n");
	put(self->cfile, text, 0600);

	EXPECT_EQ(-ELOOP, LOOKUP(env_a));
	EXPECT_STREQ("profile [a]: source_profile chain a -> b -> a loops", self->err);
	/* the first profile's keys do not end the loop back to it (the SDKs'
	 * shared assume-role tests: "infinite loop with static credentials") */
	env_s[2] = "AWS_PROFILE=ka";
	EXPECT_EQ(-ELOOP, LOOKUP(env_s));
	EXPECT_STREQ("profile [ka]: source_profile chain ka -> kb -> ka loops", self->err);
	env_s[2] = "AWS_PROFILE=s";
	EXPECT_EQ(-ELOOP, LOOKUP(env_s));
	EXPECT_NE(NULL, strstr(self->err, "profile [s]: source_profile chain s -> s loops (a profile may be its own source_profile only with aws_access_key_id"))
		TH_LOG("%s", self->err);
	EXPECT_EQ(-ENOENT, LOOKUP(env_m));
	snprintf(want, sizeof(want), "profile [m]: source_profile = nope: no such profile in %s or %s",
		 self->kfile, self->cfile);
	EXPECT_STREQ(want, self->err);
	/* 10 profiles: more than the 8 allowed */
	EXPECT_EQ(-ELOOP, LOOKUP(env_p1));
	EXPECT_STREQ("profile [p1]: source_profile chain p1 -> p2 -> p3 -> p4 -> p5 -> p6 -> p7 -> p8 -> p9 is longer than 8 profiles",
		     self->err);
	EXPECT_EQ(0, F.sts_calls);
	/* 9 profiles: p2 .. p9 and the keys of p10 ... */
	EXPECT_EQ(-ELOOP, LOOKUP(env_p2));
	EXPECT_EQ(0, F.sts_calls);
	/* ... 8 are allowed: seven roles assumed in turn */
	put(self->cfile, strstr(text, "[profile p3]"), 0600);
	env_p2[2] = "AWS_PROFILE=p3";
	ASSERT_EQ(0, LOOKUP(env_p2)) TH_LOG("%s", self->err);
	ASSERT_EQ(7, F.sts_calls);
	expect_assume(_metadata, 1, ROLE_A, "AKIDSRC", "", "us-east-1");
	expect_assume(_metadata, 7, ROLE_A, "ASIAROLE6", "roletoken6", "us-east-1");
	EXPECT_STREQ("ASIAROLE7", self->c.access_key);
}

/* mfa_serial needs a token code typed in: refused, in a source too. */
TEST_F(chain, role_mfa_refused)
{
	char *env[] = { self->home, self->sts, "AWS_PROFILE=mfa", NULL };
	char *env_top[] = { self->home, self->sts, "AWS_PROFILE=top", NULL };

	put(self->kfile, SRC_KEYS, 0600);
	put(self->cfile,
	    "[profile mfa]\nrole_arn = " ROLE_A "\nsource_profile = src\n"
	    "mfa_serial = arn:aws:iam::123456789012:mfa/me\n"
	    "[profile top]\nrole_arn = " ROLE_B "\nsource_profile = mfa\n", 0600);
	EXPECT_EQ(-EOPNOTSUPP, LOOKUP(env));
	EXPECT_NE(NULL, strstr(self->err, "profile [mfa]: mfa_serial = arn:aws:iam::123456789012:mfa/me: AssumeRole would need an MFA token code"))
		TH_LOG("%s", self->err);
	EXPECT_EQ(-EOPNOTSUPP, LOOKUP(env_top));
	EXPECT_NE(NULL, strstr(self->err, "profile [mfa]: mfa_serial")) TH_LOG("%s", self->err);
	EXPECT_EQ(0, F.sts_calls);
}

/* duration_seconds: 900..43200, else an error naming the key. */
TEST_F(chain, role_duration_range)
{
	static const char *const bad[] = { "899", "43201", "12x", "-900", "0x384",
					   "99999999999999" };
	char *env[] = { self->home, self->sts, "AWS_PROFILE=d", NULL };
	char text[512], want[128];
	size_t i;

	put(self->kfile, SRC_KEYS, 0600);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text),
			 "[profile d]\nrole_arn = " ROLE_A "\nsource_profile = src\nduration_seconds = %s\n",
			 bad[i]);
		put(self->cfile, text, 0600);
		EXPECT_EQ(-EINVAL, LOOKUP(env)) TH_LOG("%s", bad[i]);
		snprintf(want, sizeof(want),
			 "profile [d]: duration_seconds = %s: expected 900..43200 seconds", bad[i]);
		EXPECT_STREQ(want, self->err);
	}
	EXPECT_EQ(0, F.sts_calls);
	put(self->cfile, "[profile d]\nrole_arn = " ROLE_A "\nsource_profile = src\nduration_seconds = 900\n", 0600);
	ASSERT_EQ(0, LOOKUP(env)) TH_LOG("%s", self->err);
	EXPECT_STREQ("900", call(1)->duration);
	hc_creds_release(&self->c);
	put(self->cfile, "[profile d]\nrole_arn = " ROLE_A "\nsource_profile = src\nduration_seconds = 43200\n", 0600);
	ASSERT_EQ(0, LOOKUP(env)) TH_LOG("%s", self->err);
	EXPECT_STREQ("43200", call(2)->duration);
}

/* STS refusing: named with the profile, the role and STS's code and message. */
TEST_F(chain, role_sts_errors)
{
	char *env[] = { self->home, self->sts, "AWS_PROFILE=role", NULL };
	char *env_a[] = { self->home, self->sts, "AWS_PROFILE=a", NULL };

	put(self->kfile, SRC_KEYS, 0600);
	put(self->cfile,
	    "[profile role]\nrole_arn = " ROLE_A "\nsource_profile = src\n"
	    "[profile a]\nrole_arn = " ROLE_A "\nsource_profile = b\n"
	    "[profile b]\nrole_arn = " ROLE_B "\nsource_profile = src\n", 0600);
	F.role_deny = true;
	EXPECT_EQ(-EACCES, LOOKUP(env));
	EXPECT_NE(NULL, strstr(self->err, "profile [role]: STS: AccessDenied: User: arn:aws:iam::123456789012:user/AKIDSRC is not authorized to perform: sts:AssumeRole on resource: " ROLE_A))
		TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "(role " ROLE_A " at http://127.0.0.1:"))
		TH_LOG("%s", self->err);
	F.role_deny = false;

	/* a static source refused as expired: said so, not retried */
	strcpy(F.expired_ak, "AKIDSRC");
	EXPECT_EQ(-EACCES, LOOKUP(env));
	EXPECT_NE(NULL, strstr(self->err, "profile [role]: STS: ExpiredToken: "))
		TH_LOG("%s", self->err);
	EXPECT_EQ(2, F.sts_calls);

	/* a temporary source refused as expired: fetched again, the call made once more */
	strcpy(F.expired_ak, "ASIAROLE1");
	ASSERT_EQ(0, LOOKUP(env_a)) TH_LOG("%s", self->err);
	ASSERT_EQ(6, F.sts_calls);
	expect_assume(_metadata, 3, ROLE_B, "AKIDSRC", "", "us-east-1");
	expect_assume(_metadata, 4, ROLE_A, "ASIAROLE1", "roletoken1", "us-east-1");
	expect_assume(_metadata, 5, ROLE_B, "AKIDSRC", "", "us-east-1");
	expect_assume(_metadata, 6, ROLE_A, "ASIAROLE2", "roletoken2", "us-east-1");
	EXPECT_STREQ("ASIAROLE3", self->c.access_key);
}

/* Assumed credentials are refreshed before they expire, their source too. */
TEST_F(chain, role_refresh)
{
	char *env[] = { self->home, self->sts, "AWS_PROFILE=role", NULL };
	char *env_a[] = { self->home, self->sts, "AWS_PROFILE=a", NULL };
	struct hc_creds copy;

	put(self->kfile, SRC_KEYS, 0600);
	put(self->cfile,
	    "[profile role]\nrole_arn = " ROLE_A "\nsource_profile = src\n"
	    "[profile a]\nrole_arn = " ROLE_A "\nsource_profile = b\n"
	    "[profile b]\nrole_arn = " ROLE_B "\nsource_profile = src\n", 0600);
	F.sts_ttl = HC_CRED_REFRESH_AHEAD - 60;
	ASSERT_EQ(0, LOOKUP(env)) TH_LOG("%s", self->err);
	F.sts_ttl = 3600;
	hc_creds_hold(&copy, &self->c);
	ASSERT_EQ(0, hc_creds_current(&copy, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	ASSERT_EQ(2, F.sts_calls);
	expect_assume(_metadata, 2, ROLE_A, "AKIDSRC", "", "us-east-1");
	EXPECT_STREQ("ASIAROLE2", copy.access_key);
	EXPECT_STREQ("roletoken2", copy.session_token);
	/* the other copy follows without a call of its own */
	ASSERT_EQ(0, hc_creds_current(&self->c, self->err, sizeof(self->err)));
	EXPECT_EQ(2, F.sts_calls);
	EXPECT_STREQ("ASIAROLE2", self->c.access_key);
	/* refused as expired: the next use calls STS again */
	EXPECT_TRUE(hc_creds_expired(&copy));
	ASSERT_EQ(0, hc_creds_current(&copy, self->err, sizeof(self->err)));
	EXPECT_EQ(3, F.sts_calls);
	EXPECT_STREQ("ASIAROLE3", copy.access_key);
	hc_creds_release(&copy);
	hc_creds_release(&self->c);

	/* a chain: the source's role is due too, so it is assumed again first
	 * (at the lookup already: b's first set, due at once, is not used) */
	F.sts_ttl = HC_CRED_REFRESH_AHEAD - 60;
	ASSERT_EQ(0, LOOKUP(env_a)) TH_LOG("%s", self->err);
	ASSERT_EQ(6, F.sts_calls);
	expect_assume(_metadata, 4, ROLE_B, "AKIDSRC", "", "us-east-1");
	expect_assume(_metadata, 5, ROLE_B, "AKIDSRC", "", "us-east-1");
	expect_assume(_metadata, 6, ROLE_A, "ASIAROLE5", "roletoken5", "us-east-1");
	F.sts_ttl = 3600;
	ASSERT_EQ(0, hc_creds_current(&self->c, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	ASSERT_EQ(8, F.sts_calls);
	expect_assume(_metadata, 7, ROLE_B, "AKIDSRC", "", "us-east-1");
	expect_assume(_metadata, 8, ROLE_A, "ASIAROLE7", "roletoken7", "us-east-1");
	EXPECT_STREQ("ASIAROLE8", self->c.access_key);
	/* both fresh now: nothing called */
	ASSERT_EQ(0, hc_creds_current(&self->c, self->err, sizeof(self->err)));
	EXPECT_EQ(8, F.sts_calls);
	/* a stale role whose source is still fresh: only the role is assumed */
	EXPECT_TRUE(hc_creds_expired(&self->c));
	ASSERT_EQ(0, hc_creds_current(&self->c, self->err, sizeof(self->err)));
	ASSERT_EQ(9, F.sts_calls);
	expect_assume(_metadata, 9, ROLE_A, "ASIAROLE7", "roletoken7", "us-east-1");
	EXPECT_STREQ("ASIAROLE9", self->c.access_key);
}

/* A profile's web_identity_token_file + role_arn, as the environment's. */
TEST_F(chain, role_web_identity_profile)
{
	char web[200], arn[] = "AWS_ROLE_ARN=" ROLE_B, text[1024];
	char *env[] = { self->home, self->sts, "AWS_PROFILE=w", NULL };
	char *env_missing[] = { self->home, self->sts, "AWS_PROFILE=wmissing", NULL };
	char *env_norole[] = { self->home, self->sts, "AWS_PROFILE=wnorole", NULL };
	char *env_role[] = { self->home, self->sts, "AWS_PROFILE=role", web, arn, NULL };

	snprintf(web, sizeof(web), "AWS_WEB_IDENTITY_TOKEN_FILE=%s", self->jwt);
	put(self->kfile, SRC_KEYS, 0600);
	snprintf(text, sizeof(text),
		 "[profile w]\nrole_arn = " ROLE "\nweb_identity_token_file = %s\n"
		 "role_session_name = wsess\n"
		 "[profile wmissing]\nrole_arn = " ROLE "\nweb_identity_token_file = %s/none\n"
		 "[profile wnorole]\nweb_identity_token_file = %s\n"
		 "[profile role]\nrole_arn = " ROLE_A "\nsource_profile = src\n",
		 self->jwt, self->dir, self->jwt);
	put(self->cfile, text, 0600);

	ASSERT_EQ(0, LOOKUP(env)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_WEB_IDENTITY, self->c.source);
	EXPECT_STREQ("w", self->c.profile);
	EXPECT_STREQ("ASIASTS1", self->c.access_key);
	EXPECT_NE(NULL, self->c.provider);
	EXPECT_STREQ("AssumeRoleWithWebIdentity", call(1)->action);
	EXPECT_STREQ(ROLE, call(1)->role);
	EXPECT_STREQ("wsess", call(1)->session);
	EXPECT_NE(NULL, strstr(F.sts_body, "WebIdentityToken=" JWT)) TH_LOG("%s", F.sts_body);
	hc_creds_release(&self->c);

	EXPECT_EQ(-ENOENT, LOOKUP(env_missing));
	EXPECT_NE(NULL, strstr(self->err, "profile [wmissing] web_identity_token_file "))
		TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "/none: ")) TH_LOG("%s", self->err);
	EXPECT_EQ(-EINVAL, LOOKUP(env_norole));
	EXPECT_STREQ("profile [wnorole]: web_identity_token_file is set but role_arn is not",
		     self->err);
	F.sts_deny = true;
	EXPECT_EQ(-EACCES, LOOKUP(env));
	EXPECT_NE(NULL, strstr(self->err, "profile [w]: STS: AccessDenied: ")) TH_LOG("%s", self->err);
	F.sts_deny = false;

	/* the environment's web identity comes before the profile's role (source 3) */
	ASSERT_EQ(0, LOOKUP(env_role)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_CREDS_WEB_IDENTITY, self->c.source);
	EXPECT_STREQ("", self->c.profile);
	EXPECT_STREQ(ROLE_B, call(F.sts_calls)->role);
}

TEST(parse_time)
{
	time_t t;

	ASSERT_EQ(0, hc_creds_parse_time("2026-12-01T23:59:59Z", &t));
	EXPECT_EQ(1796169599, t);
	ASSERT_EQ(0, hc_creds_parse_time("2026-12-01T23:59:59.123Z", &t));
	EXPECT_EQ(1796169599, t);
	ASSERT_EQ(0, hc_creds_parse_time("2026-12-01T23:59:59+00:00", &t));
	EXPECT_EQ(1796169599, t);
	EXPECT_EQ(-EINVAL, hc_creds_parse_time("2026-12-01 23:59", &t));
	EXPECT_EQ(-EINVAL, hc_creds_parse_time("2026-12-01T23:59:59+02:00", &t));
	EXPECT_EQ(-EINVAL, hc_creds_parse_time(NULL, &t));
}

TEST(parse_answers)
{
	static struct hc_creds c;
	char err[256];
	const char *no_exp = "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>A</AccessKeyId><SecretAccessKey>S</SecretAccessKey><SessionToken>T</SessionToken></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>";

	EXPECT_EQ(-EINVAL, hc_creds_parse_sts(no_exp, strlen(no_exp), &c, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hc_creds_parse_sts("not xml", 7, &c, err, sizeof(err)));
	EXPECT_STREQ("STS: the answer is not XML", err);

	EXPECT_EQ(0, hc_creds_parse_process("{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\",\"Expiration\":\"2026-12-01T23:59:59Z\"}",
					    &c, err, sizeof(err)));
	EXPECT_EQ(1796169599, c.expiration);
	EXPECT_EQ(-EINVAL, hc_creds_parse_process("{\"Version\":2,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\"}",
						  &c, err, sizeof(err)));
	EXPECT_STREQ("credential_process: \"Version\" is not 1", err);
	EXPECT_EQ(-EINVAL, hc_creds_parse_process("{\"Version\":1,\"AccessKeyId\":\"A\"}",
						  &c, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hc_creds_parse_process("{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\",\"Expiration\":\"soon\"}",
						  &c, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hc_creds_parse_process("[]", &c, err, sizeof(err)));
	/* one object and nothing after it (json-c alone would take it) */
	EXPECT_EQ(-EINVAL, hc_creds_parse_process("{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\"} trailing",
						  &c, err, sizeof(err)));
	EXPECT_STREQ("credential_process: the output is not one JSON object", err);
	EXPECT_EQ(0, hc_creds_parse_process("{\"Version\":1,\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\"}\n\n",
					    &c, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hc_creds_parse_process("{\"Version\":1,", &c, err, sizeof(err)));

	EXPECT_EQ(-EACCES, hc_creds_parse_imds("{\"Code\":\"AssumeRoleUnauthorizedAccess\"}",
					       &c, err, sizeof(err)));
	/* IMDS credentials always expire */
	EXPECT_EQ(-EINVAL, hc_creds_parse_imds("{\"Code\":\"Success\",\"AccessKeyId\":\"A\",\"SecretAccessKey\":\"S\",\"Token\":\"T\"}",
					       &c, err, sizeof(err)));
}

/* The backend key: anonymous = true, never with keys. */
TEST(config_anonymous)
{
	static struct hc_config cfg;
	char err[256];

	ASSERT_EQ(0, hc_config_parse("[backend pub]\ntype = s3\nendpoint = http://h\nanonymous = true\n",
				     "t.conf", &cfg, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_TRUE(cfg.backends[0].anonymous);
	EXPECT_FALSE(cfg.backends[0].region_set);
	ASSERT_EQ(0, hc_config_parse("[backend pub]\ntype = s3\nendpoint = http://h\nregion = eu-west-1\n",
				     "t.conf", &cfg, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_TRUE(cfg.backends[0].region_set);
	EXPECT_EQ(-EINVAL, hc_config_parse("[backend pub]\ntype = s3\nendpoint = http://h\nanonymous = true\naccess_key = A\nsecret_key = S\n",
					   "t.conf", &cfg, err, sizeof(err)));
	EXPECT_STREQ("t.conf:4: [backend pub] anonymous: true with access_key: unsigned requests carry no key",
		     err);
	EXPECT_EQ(-EINVAL, hc_config_parse("[backend pub]\ntype = s3\nendpoint = http://h\nanonymous = maybe\n",
					   "t.conf", &cfg, err, sizeof(err)));
}

TEST_HARNESS_MAIN
