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
#include "util.h"

#define JWT	"eyJhbGciOi.jwt-token.sig"
#define ROLE	"arn:aws:iam::123456789012:role/hc"

/* The fake's state; the MHD thread and the test share it. */
static struct {
	pthread_mutex_t lock;
	struct MHD_Daemon *d;
	unsigned short port;
	/* script */
	long sts_ttl;		/* s from now of each STS Expiration */
	bool sts_deny;		/* answer AccessDenied */
	long imds_ttl;
	bool imds_no_role;
	int s3_expire;		/* next N S3 requests: 400 ExpiredToken */
	bool s3_expire_403;	/* ... as a 403 instead */
	/* seen */
	int sts_calls, imds_token_calls, imds_cred_calls, s3_calls;
	char sts_body[2048];
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

static enum MHD_Result sts(struct MHD_Connection *c, struct rq *r)
{
	char doc[2048], exp[32];
	int n;

	snprintf(F.sts_body, sizeof(F.sts_body), "%.*s", (int)r->len,
		 r->body ? r->body : "");
	n = ++F.sts_calls;
	if (F.sts_deny)
		return reply(c, 403, "<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>Not authorized to perform sts:AssumeRoleWithWebIdentity</Message></Error></ErrorResponse>");
	iso(F.sts_ttl, exp, sizeof(exp));
	snprintf(doc, sizeof(doc),
		 "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIASTS%d</AccessKeyId><SecretAccessKey>stssecret%d</SecretAccessKey><SessionToken>ststoken%d</SessionToken><Expiration>%s</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>",
		 n, n, n, exp);
	return reply(c, 200, doc);
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
	if (!strcmp(url, "/sts/") && !strcmp(method, "POST"))
		ret = sts(c, r);
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

	/* an assume-role profile is refused, not used with its source's keys */
	put(self->cfile, "[profile proc]\nrole_arn = " ROLE "\nsource_profile = default\n"
	    "aws_access_key_id = AKIDSOURCE\naws_secret_access_key = S\n", 0600);
	EXPECT_EQ(-EOPNOTSUPP, LOOKUP(env_proc));
	EXPECT_NE(NULL, strstr(self->err, "profile [proc]: role_arn")) TH_LOG("%s", self->err);

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
