// SPDX-License-Identifier: GPL-2.0
/*
 * hypercached's configuration: defaults, a full file, the exact message of
 * every kind of error, and the order in which credentials are looked up
 * (config, environment, shared credentials file and its profile).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "config.h"

static struct hc_config cfg;	/* large: not on the stack */
static char err[512];

static int parse(const char *text)
{
	err[0] = '\0';
	return hc_config_parse(text, "hypercache.conf", &cfg, err, sizeof(err));
}

TEST(defaults)
{
	hc_config_defaults(&cfg);
	EXPECT_EQ(HC_LOG_INFO, cfg.log_level);
	EXPECT_EQ(8, cfg.ingest_concurrency);
	EXPECT_EQ(8ULL << 20, cfg.part_size);
	EXPECT_EQ(4, cfg.max_objects_in_flight);
	EXPECT_EQ(10, cfg.timeout_connect);
	EXPECT_EQ(300, cfg.timeout_request);
	EXPECT_EQ(5, cfg.retry_attempts);
	EXPECT_STREQ("127.0.0.1:9110", cfg.metrics_listen);
	EXPECT_STREQ("127.0.0.1", cfg.metrics_host);
	EXPECT_EQ(9110, cfg.metrics_port);
	EXPECT_STREQ("s3", cfg.default_backend);
	EXPECT_EQ(256ULL << 20, cfg.buffer_budget);
	EXPECT_EQ(HC_NUMA_AUTO, cfg.numa);
	EXPECT_EQ(0, cfg.nr_backends);
	EXPECT_EQ(NULL, hc_config_backend(&cfg, "s3"));

	/* An empty file (and one of comments) is the defaults. */
	ASSERT_EQ(0, parse("")) TH_LOG("%s", err);
	EXPECT_EQ(8ULL << 20, cfg.part_size);
	ASSERT_EQ(0, parse("# nothing\n; here\n\n  # indented comment\n"))
		TH_LOG("%s", err);
	EXPECT_EQ(0, cfg.nr_backends);
}

static const char full[] =
	"# hypercached\n"
	"[hypercached]\n"
	"log_level = debug\n"
	"ingest_concurrency = 64\n"
	"part_size = 16M\n"
	"max_objects_in_flight = 2\n"
	"timeout_connect = 3\n"
	"timeout_request = 600 ; inline comment\n"
	"retry_attempts = 1\n"
	"metrics_listen = [::1]:9200\n"
	"default_backend = aws\n"
	"\n"
	"[backend aws]\n"
	"type = s3\n"
	"endpoint = https://s3.eu-west-1.amazonaws.com\n"
	"region = eu-west-1\n"
	"addressing = virtual\n"
	"access_key = AKIDEXAMPLE\n"
	"secret_key = wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n"
	"ca_file = /etc/ssl/certs/ca.pem\n"
	"sign_payload = true\n"
	"\r\n"
	"[backend ceph_rgw-2]\r\n"
	"endpoint = http://rgw.local:7480\r\n"
	"type = s3\r\n"
	"\n"
	"[backend nfs]\n"
	"type = posix\n"
	"root = /mnt/datasets\n";

/* buffer_budget: at least one part; the default grows to one part. */
TEST(buffer_budget)
{
	ASSERT_EQ(0, parse("[hypercached]\nbuffer_budget = 64G\n")) TH_LOG("%s", err);
	EXPECT_EQ(64ULL << 30, cfg.buffer_budget);
	ASSERT_EQ(0, parse("[hypercached]\npart_size = 1G\n")) TH_LOG("%s", err);
	EXPECT_EQ(1ULL << 30, cfg.buffer_budget);
	EXPECT_EQ(-EINVAL, parse("[hypercached]\nbuffer_budget = 4M\npart_size = 8M\n"));
	EXPECT_STREQ("hypercache.conf:2: [hypercached] buffer_budget: 4194304 bytes "
		     "is less than part_size (8388608): not one part would fit", err);
	EXPECT_EQ(-EINVAL, parse("[hypercached]\nbuffer_budget = 65G\n"));
	EXPECT_STREQ("hypercache.conf:2: [hypercached] buffer_budget: 65G out of "
		     "range 1M..64G", err);
}

/* numa: auto or off; a restart applies it */
TEST(numa)
{
	static struct hc_config a, b;
	char keys[256], e[256];

	ASSERT_EQ(0, parse("[hypercached]\nnuma = off\n")) TH_LOG("%s", err);
	EXPECT_EQ(HC_NUMA_OFF, cfg.numa);
	ASSERT_EQ(0, parse("[hypercached]\nnuma = auto\n")) TH_LOG("%s", err);
	EXPECT_EQ(HC_NUMA_AUTO, cfg.numa);
	EXPECT_EQ(-EINVAL, parse("[hypercached]\nnuma = on\n"));
	EXPECT_STREQ("hypercache.conf:2: [hypercached] numa: expected auto or off, "
		     "got \"on\"", err);
	EXPECT_EQ(-EINVAL, parse("[hypercached]\nnuma = off\nnuma = off\n"));
	ASSERT_EQ(0, hc_config_parse("[hypercached]\n", "a", &a, e, sizeof(e)));
	ASSERT_EQ(0, hc_config_parse("[hypercached]\nnuma = off\n", "b", &b, e,
				     sizeof(e)));
	EXPECT_EQ(1, hc_config_restart_keys(&a, &b, keys, sizeof(keys)));
	EXPECT_STREQ("numa", keys);
}

TEST(full_file)
{
	const struct hc_backend *b;

	ASSERT_EQ(0, parse(full)) TH_LOG("%s", err);
	EXPECT_EQ(HC_LOG_DEBUG, cfg.log_level);
	EXPECT_EQ(64, cfg.ingest_concurrency);
	EXPECT_EQ(16ULL << 20, cfg.part_size);
	EXPECT_EQ(2, cfg.max_objects_in_flight);
	EXPECT_EQ(3, cfg.timeout_connect);
	EXPECT_EQ(600, cfg.timeout_request);
	EXPECT_EQ(1, cfg.retry_attempts);
	EXPECT_STREQ("[::1]:9200", cfg.metrics_listen);
	EXPECT_STREQ("::1", cfg.metrics_host);
	EXPECT_EQ(9200, cfg.metrics_port);
	EXPECT_STREQ("aws", cfg.default_backend);
	ASSERT_EQ(3, cfg.nr_backends);

	b = hc_config_backend(&cfg, "aws");
	ASSERT_NE(NULL, b);
	EXPECT_EQ(HC_BACKEND_S3, b->type);
	EXPECT_EQ(13, b->line);
	EXPECT_STREQ("https://s3.eu-west-1.amazonaws.com", b->endpoint);
	EXPECT_STREQ("eu-west-1", b->region);
	EXPECT_EQ(HC_ADDR_VIRTUAL, b->addressing);
	EXPECT_STREQ("AKIDEXAMPLE", b->access_key);
	EXPECT_STREQ("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", b->secret_key);
	EXPECT_STREQ("/etc/ssl/certs/ca.pem", b->ca_file);
	EXPECT_TRUE(b->sign_payload);

	b = hc_config_backend(&cfg, "ceph_rgw-2");
	ASSERT_NE(NULL, b);
	EXPECT_EQ(HC_BACKEND_S3, b->type);
	EXPECT_STREQ("http://rgw.local:7480", b->endpoint);
	EXPECT_STREQ("us-east-1", b->region);		/* defaults */
	EXPECT_EQ(HC_ADDR_PATH, b->addressing);
	EXPECT_STREQ("", b->access_key);
	EXPECT_STREQ("", b->ca_file);
	EXPECT_FALSE(b->sign_payload);
	EXPECT_EQ(HC_PROCESS_TIMEOUT_DEFAULT, b->process_timeout);

	b = hc_config_backend(&cfg, "nfs");
	ASSERT_NE(NULL, b);
	EXPECT_EQ(HC_BACKEND_POSIX, b->type);
	EXPECT_STREQ("/mnt/datasets", b->root);
	EXPECT_EQ(NULL, hc_config_backend(&cfg, "s3"));
}

TEST(sizes_and_listen_forms)
{
	ASSERT_EQ(0, parse("[hypercached]\npart_size = 1048576\n")) TH_LOG("%s", err);
	EXPECT_EQ(1ULL << 20, cfg.part_size);
	ASSERT_EQ(0, parse("[hypercached]\npart_size = 1g\n")) TH_LOG("%s", err);
	EXPECT_EQ(1ULL << 30, cfg.part_size);
	ASSERT_EQ(0, parse("[hypercached]\npart_size = 2052K\n")) TH_LOG("%s", err);
	EXPECT_EQ(2052ULL << 10, cfg.part_size);
	ASSERT_EQ(0, parse("[hypercached]\nmetrics_listen = 0.0.0.0:1\n")) TH_LOG("%s", err);
	EXPECT_STREQ("0.0.0.0", cfg.metrics_host);
	EXPECT_EQ(1, cfg.metrics_port);
	ASSERT_EQ(0, parse("[hypercached]\nmetrics_listen = node-7.example:65535\n"))
		TH_LOG("%s", err);
	EXPECT_STREQ("node-7.example", cfg.metrics_host);
	EXPECT_EQ(65535, cfg.metrics_port);
	/* The [hypercached] section may be split; its keys stay unique. */
	ASSERT_EQ(0, parse("[hypercached]\nretry_attempts = 3\n"
			   "[backend s3]\ntype = s3\nendpoint = https://s3.amazonaws.com\n"
			   "[hypercached]\nlog_level = warn\n")) TH_LOG("%s", err);
	EXPECT_EQ(3, cfg.retry_attempts);
	EXPECT_EQ(HC_LOG_WARN, cfg.log_level);
	EXPECT_NE(NULL, hc_config_backend(&cfg, "s3"));
}

static const struct {
	const char *text;
	const char *msg;
} bad[] = {
	/* bad values */
	{ "[backend s3]\ntype = s3\nendpoint = https://x\naddressing = vhost\n",
	  "hypercache.conf:4: [backend s3] addressing: expected path or virtual, got \"vhost\"" },
	{ "[backend s3]\ntype = s3\nendpoint = https://x\nsign_payload = yes\n",
	  "hypercache.conf:4: [backend s3] sign_payload: expected true or false, got \"yes\"" },
	{ "[backend p]\ntype = posix\nroot = /x\nsign_payload = true\n",
	  "hypercache.conf:4: [backend p] sign_payload: not a key of a posix backend" },
	{ "[hypercached]\nlog_level = verbose\n",
	  "hypercache.conf:2: [hypercached] log_level: expected error, warn, info or debug, got \"verbose\"" },
	{ "[backend b]\ntype = ftp\n",
	  "hypercache.conf:2: [backend b] type: expected s3 or posix, got \"ftp\"" },
	{ "[hypercached]\ningest_concurrency = eight\n",
	  "hypercache.conf:2: [hypercached] ingest_concurrency: expected a decimal number, got \"eight\"" },
	{ "[hypercached]\ntimeout_connect = -1\n",
	  "hypercache.conf:2: [hypercached] timeout_connect: expected a decimal number, got \"-1\"" },
	{ "[hypercached]\nretry_attempts =\n",
	  "hypercache.conf:2: [hypercached] retry_attempts: expected a decimal number, got \"\"" },
	{ "[backend b]\ntype = s3\nendpoint = s3.amazonaws.com\n",
	  "hypercache.conf:3: [backend b] endpoint: expected an http:// or https:// URL, got \"s3.amazonaws.com\"" },
	{ "[backend b]\ntype = posix\nroot = data/cache\n",
	  "hypercache.conf:3: [backend b] root: expected an absolute path, got \"data/cache\"" },
	{ "[backend b]\ntype = s3\nendpoint = https://x\nregion = EU West\n",
	  "hypercache.conf:4: [backend b] region: expected a-z 0-9 -, got \"EU West\"" },
	{ "[backend b]\ntype = s3\nendpoint = https://\n",
	  "hypercache.conf:3: [backend b] endpoint: no host in \"https://\"" },
	{ "[backend b]\ntype = s3\nrevalidate = sometimes\n",
	  "hypercache.conf:3: [backend b] revalidate: expected never, on-open-after SECONDS or always, got \"sometimes\"" },
	{ "[backend b]\ntype = s3\nrevalidate = on-open-after\n",
	  "hypercache.conf:3: [backend b] revalidate: expected never, on-open-after SECONDS or always, got \"on-open-after\"" },
	{ "[backend b]\ntype = posix\nroot = /x\nrevalidate = on-open-after 0\n",
	  "hypercache.conf:4: [backend b] revalidate: 0 out of range 1..315360000" },
	{ "[backend b]\ntype = s3\nrevalidate = on-open-after 315360001\n",
	  "hypercache.conf:3: [backend b] revalidate: 315360001 out of range 1..315360000" },
	{ "[backend b]\ntype = s3\nrevalidate = on-open-after 5m\n",
	  "hypercache.conf:3: [backend b] revalidate: expected a decimal number, got \"5m\"" },
	{ "[backend b]\ntype = s3\nrevalidate = always\nrevalidate = never\n",
	  "hypercache.conf:4: [backend b] revalidate: given twice (first at line 3)" },
	{ "[backend b]\ntype = s3\ncredential_process_timeout = 0\n",
	  "hypercache.conf:3: [backend b] credential_process_timeout: 0 out of range 1..3600" },
	{ "[backend b]\ntype = posix\nroot = /x\ncredential_process_timeout = 5\n",
	  "hypercache.conf:4: [backend b] credential_process_timeout: not a key of a posix backend" },
	/* out of range */
	{ "[hypercached]\ningest_concurrency = 65\n",
	  "hypercache.conf:2: [hypercached] ingest_concurrency: 65 out of range 1..64" },
	{ "[hypercached]\ningest_concurrency = 0\n",
	  "hypercache.conf:2: [hypercached] ingest_concurrency: 0 out of range 1..64" },
	{ "[hypercached]\nmax_objects_in_flight = 99999999999999999999999\n",
	  "hypercache.conf:2: [hypercached] max_objects_in_flight: 99999999999999999999999 out of range 1..256" },
	{ "[hypercached]\ntimeout_request = 86401\n",
	  "hypercache.conf:2: [hypercached] timeout_request: 86401 out of range 1..86400" },
	{ "[hypercached]\npart_size = 2G\n",
	  "hypercache.conf:2: [hypercached] part_size: 2G out of range 1M..1G" },
	{ "[hypercached]\npart_size = 1023K\n",
	  "hypercache.conf:2: [hypercached] part_size: 1023K out of range 1M..1G" },
	{ "[hypercached]\npart_size = 99999999999999G\n",
	  "hypercache.conf:2: [hypercached] part_size: 99999999999999G out of range 1M..1G" },
	{ "[hypercached]\npart_size = 1049000\n",
	  "hypercache.conf:2: [hypercached] part_size: 1049000 is not a multiple of 4096 bytes" },
	/* bad size suffix */
	{ "[hypercached]\npart_size = 8MB\n",
	  "hypercache.conf:2: [hypercached] part_size: expected bytes with an optional K, M or G suffix, got \"8MB\"" },
	{ "[hypercached]\npart_size = 8T\n",
	  "hypercache.conf:2: [hypercached] part_size: expected bytes with an optional K, M or G suffix, got \"8T\"" },
	{ "[hypercached]\npart_size = M\n",
	  "hypercache.conf:2: [hypercached] part_size: expected bytes with an optional K, M or G suffix, got \"M\"" },
	/* bad listen address */
	{ "[hypercached]\nmetrics_listen = 9110\n",
	  "hypercache.conf:2: [hypercached] metrics_listen: expected HOST:PORT or [IPV6]:PORT, got \"9110\"" },
	{ "[hypercached]\nmetrics_listen = ::1:9110\n",
	  "hypercache.conf:2: [hypercached] metrics_listen: IPv6 addresses go in brackets: [ADDR]:PORT, got \"::1:9110\"" },
	{ "[hypercached]\nmetrics_listen = [::g]:9110\n",
	  "hypercache.conf:2: [hypercached] metrics_listen: \"::g\" is not an IPv6 address" },
	{ "[hypercached]\nmetrics_listen = localhost:70000\n",
	  "hypercache.conf:2: [hypercached] metrics_listen: port 70000 out of range 1..65535" },
	{ "[hypercached]\nmetrics_listen = localhost:\n",
	  "hypercache.conf:2: [hypercached] metrics_listen: expected HOST:PORT or [IPV6]:PORT, got \"localhost:\"" },
	{ "[hypercached]\nmetrics_listen = [::1]9110\n",
	  "hypercache.conf:2: [hypercached] metrics_listen: expected HOST:PORT or [IPV6]:PORT, got \"[::1]9110\"" },
	/* unknown key, unknown section */
	{ "[hypercached]\nlog_level = info\nlog_levle = debug\n",
	  "hypercache.conf:3: [hypercached] log_levle: unknown key" },
	{ "[backend b]\ntype = posix\nroot = /x\nendpiont = https://x\n",
	  "hypercache.conf:4: [backend b] endpiont: unknown key" },
	{ "[hypercache]\nlog_level = info\n",
	  "hypercache.conf:1: [hypercache]: unknown section (expected [hypercached] or [backend NAME])" },
	{ "# empty sections are checked too\n[backends]\n",
	  "hypercache.conf:2: [backends]: unknown section (expected [hypercached] or [backend NAME])" },
	{ "[backend.s3]\ntype = s3\n",
	  "hypercache.conf:1: [backend.s3]: unknown section (expected [hypercached] or [backend NAME])" },
	{ "[backend My-S3]\ntype = s3\n",
	  "hypercache.conf:1: [backend My-S3]: backend name: expected a-z 0-9 _ - starting with a-z or 0-9" },
	{ "log_level = info\n",
	  "hypercache.conf:1: log_level: key outside a section" },
	/* duplicates */
	{ "[backend b]\ntype = posix\nroot = /a\n\n[backend b]\ntype = posix\nroot = /b\n",
	  "hypercache.conf:5: [backend b]: duplicate backend (first at line 1)" },
	{ "[hypercached]\nretry_attempts = 2\n[hypercached]\nretry_attempts = 3\n",
	  "hypercache.conf:4: [hypercached] retry_attempts: given twice (first at line 2)" },
	/* missing required keys, keys of the other type */
	{ "[backend b]\nendpoint = https://x\n\n[hypercached]\n",
	  "hypercache.conf:1: [backend b]: missing required key \"type\" (s3 or posix)" },
	{ "[backend b]\n",
	  "hypercache.conf:1: [backend b]: missing required key \"type\" (s3 or posix)" },
	{ "[backend nfs]\ntype = posix\n[backend b]\ntype = posix\nroot = /x\n",
	  "hypercache.conf:1: [backend nfs]: missing required key \"root\"" },
	{ "[backend nfs]\nendpoint = https://x\ntype = posix\nroot = /x\n",
	  "hypercache.conf:2: [backend nfs] endpoint: not a key of a posix backend" },
	{ "[backend b]\ntype = s3\nendpoint = https://x\nroot = /x\n",
	  "hypercache.conf:4: [backend b] root: not a key of an s3 backend" },
	{ "[backend b]\ntype = s3\nendpoint = https://x\naccess_key = AKID\n",
	  "hypercache.conf:4: [backend b] access_key: given without secret_key" },
	/* default_backend must exist and speak S3 */
	{ "[hypercached]\ndefault_backend = ceph\n[backend s3]\ntype = s3\nendpoint = https://x\n",
	  "hypercache.conf:2: [hypercached] default_backend: no [backend ceph] section" },
	{ "[hypercached]\ndefault_backend = nfs\n[backend nfs]\ntype = posix\nroot = /x\n",
	  "hypercache.conf:2: [hypercached] default_backend: backend nfs is not of type s3" },
	/* lines inih would misread */
	{ "[backend b]\ntype = posix\n  root = /x\n",
	  "hypercache.conf:3: indented line (keys and sections start in column 1; values do not continue over lines)" },
	{ "[hypercached]\nlog_level info\n",
	  "hypercache.conf:2: syntax error (expected [SECTION], KEY = VALUE or a comment)" },
	{ "[hypercached\nlog_level = info\n",
	  "hypercache.conf:1: section header without ']'" },
	{ "[backend b]\ntype = s3\nendpoint = \n",
	  "hypercache.conf:3: [backend b] endpoint: expected an http:// or https:// URL, got \"\"" },
};

/* revalidate: never by default, per backend, either type. */
TEST(revalidate)
{
	ASSERT_EQ(0, parse("[backend a]\ntype = s3\n"
			   "[backend b]\ntype = s3\nrevalidate = on-open-after   300\n"
			   "[backend c]\ntype = posix\nroot = /x\nrevalidate = always\n"
			   "[backend d]\ntype = s3\nrevalidate = never\n"))
		TH_LOG("%s", err);
	EXPECT_EQ(HC_REVALIDATE_NEVER, cfg.backends[0].revalidate);
	EXPECT_EQ(HC_REVALIDATE_AFTER, cfg.backends[1].revalidate);
	EXPECT_EQ(300, cfg.backends[1].revalidate_after);
	EXPECT_EQ(HC_REVALIDATE_ALWAYS, cfg.backends[2].revalidate);
	EXPECT_EQ(0, cfg.backends[2].revalidate_after);
	EXPECT_EQ(HC_REVALIDATE_NEVER, cfg.backends[3].revalidate);
}

/* An s3 backend without endpoint: the credential chain chooses it (cred.h). */
TEST(endpoint_optional)
{
	ASSERT_EQ(0, parse("[backend s3]\ntype = s3\nregion = us-west-2\n"
			   "credential_process_timeout = 5\n")) TH_LOG("%s", err);
	EXPECT_STREQ("", cfg.backends[0].endpoint);
	EXPECT_EQ(5, cfg.backends[0].process_timeout);
	EXPECT_EQ(NULL, hc_config_url_problem("http://[::1]:9000/p"));
	EXPECT_STREQ("expected an http:// or https:// URL, got",
		     hc_config_url_problem("s3.amazonaws.com"));
	EXPECT_STREQ("spaces in", hc_config_url_problem("https://a b"));
}

/* The exporter's egress price (Documentation/metrics.md). */
TEST(egress_price)
{
	ASSERT_EQ(0, parse("")) TH_LOG("%s", err);
	EXPECT_EQ(0.09, cfg.egress_price_per_gb);
	ASSERT_EQ(0, parse("[hypercached]\negress_price_per_gb = 0.05\n")) TH_LOG("%s", err);
	EXPECT_EQ(0.05, cfg.egress_price_per_gb);
	ASSERT_EQ(0, parse("[hypercached]\negress_price_per_gb = 0\n")) TH_LOG("%s", err);
	EXPECT_EQ(0, cfg.egress_price_per_gb);
	EXPECT_EQ(-EINVAL, parse("[hypercached]\negress_price_per_gb = -1\n"));
	EXPECT_STREQ("hypercache.conf:2: [hypercached] egress_price_per_gb: expected a price in dollars per GB (0..1000000, e.g. 0.09), got \"-1\"", err);
	EXPECT_EQ(-EINVAL, parse("[hypercached]\negress_price_per_gb = 1e3\n"));
	EXPECT_EQ(-EINVAL, parse("[hypercached]\negress_price_per_gb = 2000000\n"));
	EXPECT_EQ(-EINVAL, parse("[hypercached]\negress_price_per_gb = .\n"));
}

TEST(every_error_is_named)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, parse(bad[i].text)) TH_LOG("case %zu", i);
		EXPECT_STREQ(bad[i].msg, err) TH_LOG("case %zu", i);
	}
}

TEST(long_lines_and_nul)
{
	static char text[8192];
	size_t n;

	n = (size_t)snprintf(text, sizeof(text), "[backend b]\ntype = s3\nendpoint = https://");
	memset(text + n, 'a', 5000);
	strcpy(text + n + 5000, "\n");
	EXPECT_EQ(-EINVAL, parse(text));
	EXPECT_STREQ("hypercache.conf:3: line longer than 4094 bytes", err);

	/* 1100 bytes: too long for the field, not for the line. */
	n = (size_t)snprintf(text, sizeof(text), "[backend b]\ntype = s3\nendpoint = https://");
	memset(text + n, 'a', 1100);
	strcpy(text + n + 1100, "\n");
	EXPECT_EQ(-EINVAL, parse(text));
	EXPECT_STREQ("hypercache.conf:3: [backend b] endpoint: longer than 1023 bytes", err);

	/* A host longer than its field: refused, not copied. */
	n = (size_t)snprintf(text, sizeof(text), "[hypercached]\nmetrics_listen = [");
	memset(text + n, 'a', 258);
	strcpy(text + n + 258, "]:1\n");
	EXPECT_EQ(-EINVAL, parse(text));
	EXPECT_NE(NULL, strstr(err, "expected HOST:PORT or [IPV6]:PORT")) TH_LOG("%s", err);
	n = (size_t)snprintf(text, sizeof(text), "[hypercached]\nmetrics_listen = ");
	memset(text + n, 'a', 258);
	strcpy(text + n + 258, ":1\n");
	EXPECT_EQ(-EINVAL, parse(text));
	EXPECT_NE(NULL, strstr(err, "expected HOST:PORT or [IPV6]:PORT")) TH_LOG("%s", err);
}

FIXTURE(tmp) {
	char dir[64];
	char path[256];
};

FIXTURE_SETUP(tmp)
{
	strcpy(self->dir, "/tmp/hc_config_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
}

FIXTURE_TEARDOWN(tmp)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

static void put(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fwrite(text, 1, len, f);
		fclose(f);
	}
}

TEST_F(tmp, load_file)
{
	snprintf(self->path, sizeof(self->path), "%s/hypercache.conf", self->dir);
	put(self->path, full, strlen(full));
	ASSERT_EQ(0, hc_config_load(self->path, &cfg, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(3, cfg.nr_backends);

	put(self->path, "[hypercached]\nlog_level = loud\n", 31);
	EXPECT_EQ(-EINVAL, hc_config_load(self->path, &cfg, err, sizeof(err)));
	EXPECT_EQ(0, strncmp(err, self->path, strlen(self->path))) TH_LOG("%s", err);
	EXPECT_STREQ(":2: [hypercached] log_level: expected error, warn, info or debug, got \"loud\"",
		     err + strlen(self->path));

	put(self->path, "[hypercached]\n\0log_level = info\n", 32);
	EXPECT_EQ(-EINVAL, hc_config_load(self->path, &cfg, err, sizeof(err)));
	EXPECT_STREQ(":2: NUL byte in the line", err + strlen(self->path));

	snprintf(self->path, sizeof(self->path), "%s/missing.conf", self->dir);
	EXPECT_EQ(-ENOENT, hc_config_load(self->path, &cfg, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "No such file")) TH_LOG("%s", err);
}

/* The example shipped in helper/ is valid and matches the defaults. */
TEST(shipped_example)
{
	static const char path[] = "../../helper/hypercache.conf";
	const struct hc_backend *b;

	if (access(path, R_OK))
		SKIP(return, "%s not found (run from tests/unit)", path);
	ASSERT_EQ(0, hc_config_load(path, &cfg, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(HC_LOG_INFO, cfg.log_level);
	EXPECT_EQ(8, cfg.ingest_concurrency);
	EXPECT_EQ(8ULL << 20, cfg.part_size);
	EXPECT_EQ(4, cfg.max_objects_in_flight);
	EXPECT_EQ(10, cfg.timeout_connect);
	EXPECT_EQ(300, cfg.timeout_request);
	EXPECT_EQ(5, cfg.retry_attempts);
	EXPECT_STREQ("127.0.0.1:9110", cfg.metrics_listen);
	EXPECT_STREQ("s3", cfg.default_backend);
	b = hc_config_backend(&cfg, "s3");
	ASSERT_NE(NULL, b);
	EXPECT_EQ(HC_BACKEND_S3, b->type);
	EXPECT_STREQ("us-east-1", b->region);
	EXPECT_EQ(HC_ADDR_PATH, b->addressing);
}


/*
 * SIGHUP: log_level applies live, everything else needs a restart and is
 * named (never its value); an unchanged file, reordered backends or moved
 * lines need nothing.
 */
static const char reload_base[] =
	"[hypercached]\nlog_level = info\npart_size = 8M\n\n"
	"[backend s3]\ntype = s3\nendpoint = http://10.0.2.2:7480\n"
	"access_key = AK\nsecret_key = SECRETVALUE\n\n"
	"[backend store]\ntype = posix\nroot = /srv/store\n";

static unsigned int reload_diff(const char *next_text, char *keys, size_t len)
{
	static struct hc_config old, next;
	char e[256];

	if (hc_config_parse(reload_base, "old.conf", &old, e, sizeof(e)) ||
	    hc_config_parse(next_text, "new.conf", &next, e, sizeof(e))) {
		snprintf(keys, len, "parse error: %s", e);
		return 999;
	}
	return hc_config_restart_keys(&old, &next, keys, len);
}

TEST(reload_restart_keys)
{
	char keys[512], text[1024];

	EXPECT_EQ(0, reload_diff(reload_base, keys, sizeof(keys))) TH_LOG("%s", keys);
	EXPECT_STREQ("", keys);
	/* log_level is live */
	snprintf(text, sizeof(text), "%s", reload_base);
	memcpy(strstr(text, "info"), "warn", 4);
	EXPECT_EQ(0, reload_diff(text, keys, sizeof(keys))) TH_LOG("%s", keys);
	/* the backends in another order, a comment moving every line: nothing */
	EXPECT_EQ(0, reload_diff("# moved\n[hypercached]\nlog_level = debug\npart_size = 8M\n\n"
				 "[backend store]\ntype = posix\nroot = /srv/store\n\n"
				 "[backend s3]\ntype = s3\nendpoint = http://10.0.2.2:7480\n"
				 "access_key = AK\nsecret_key = SECRETVALUE\n",
				 keys, sizeof(keys))) TH_LOG("%s", keys);
	/* a daemon setting, a backend's field, a secret (named, not shown) */
	EXPECT_EQ(3, reload_diff("[hypercached]\nlog_level = info\npart_size = 16M\n\n"
				 "[backend s3]\ntype = s3\nendpoint = http://10.0.2.2:7481\n"
				 "access_key = AK\nsecret_key = OTHERSECRET\n\n"
				 "[backend store]\ntype = posix\nroot = /srv/store\n",
				 keys, sizeof(keys)));
	EXPECT_STREQ("part_size, [backend s3] endpoint, [backend s3] secret_key", keys);
	EXPECT_EQ(NULL, strstr(keys, "SECRET"));
	/* a backend removed, one added */
	EXPECT_EQ(2, reload_diff("[hypercached]\nlog_level = info\npart_size = 8M\n\n"
				 "[backend s3]\ntype = s3\nendpoint = http://10.0.2.2:7480\n"
				 "access_key = AK\nsecret_key = SECRETVALUE\n\n"
				 "[backend data]\ntype = posix\nroot = /srv/store\n",
				 keys, sizeof(keys)));
	EXPECT_STREQ("[backend store] (removed), [backend data] (added)", keys);
	/* a key the named list has (metrics_listen) */
	snprintf(text, sizeof(text), "[hypercached]\nmetrics_listen = 127.0.0.1:9111\n%s",
		 strstr(reload_base, "\n[backend s3]"));
	EXPECT_EQ(1, reload_diff(text, keys, sizeof(keys))) TH_LOG("%s", keys);
	EXPECT_STREQ("metrics_listen", keys);
	/* truncation keeps the count */
	EXPECT_EQ(3, reload_diff("[hypercached]\nlog_level = info\npart_size = 16M\n\n"
				 "[backend s3]\ntype = s3\nendpoint = http://10.0.2.2:7481\n"
				 "access_key = AK\nsecret_key = OTHERSECRET\n\n"
				 "[backend store]\ntype = posix\nroot = /srv/store\n",
				 keys, 12));
	EXPECT_STREQ("part_size, ", keys);
}

/*
 * A backend's revalidate is live on SIGHUP: not a restart key, and
 * hc_config_apply_live() takes it (and log_level) into the running
 * configuration, for the rules the daemon sends the kernel again; a
 * backend the reload removed keeps its policy.
 */
TEST(reload_revalidate_live)
{
	static struct hc_config run, next;
	const struct hc_backend *b;
	char keys[512], e[256];

	ASSERT_EQ(0, hc_config_parse(reload_base, "old.conf", &run, e, sizeof(e)));
	ASSERT_EQ(0, hc_config_parse("[hypercached]\nlog_level = debug\npart_size = 8M\n\n"
				     "[backend s3]\ntype = s3\nendpoint = http://10.0.2.2:7480\n"
				     "access_key = AK\nsecret_key = SECRETVALUE\n"
				     "revalidate = on-open-after 60\n\n"
				     "[backend store]\ntype = posix\nroot = /srv/store\n"
				     "revalidate = always\n",
				     "new.conf", &next, e, sizeof(e))) TH_LOG("%s", e);
	EXPECT_EQ(0, hc_config_restart_keys(&run, &next, keys, sizeof(keys))) TH_LOG("%s", keys);
	EXPECT_STREQ("", keys);
	hc_config_apply_live(&run, &next);
	EXPECT_EQ(HC_LOG_DEBUG, run.log_level);
	b = hc_config_backend(&run, "s3");
	ASSERT_NE(NULL, b);
	EXPECT_EQ(HC_REVALIDATE_AFTER, b->revalidate);
	EXPECT_EQ(60, b->revalidate_after);
	b = hc_config_backend(&run, "store");
	ASSERT_NE(NULL, b);
	EXPECT_EQ(HC_REVALIDATE_ALWAYS, b->revalidate);
	/* back to never */
	ASSERT_EQ(0, hc_config_parse(reload_base, "old.conf", &next, e, sizeof(e)));
	hc_config_apply_live(&run, &next);
	EXPECT_EQ(HC_REVALIDATE_NEVER, hc_config_backend(&run, "s3")->revalidate);
	EXPECT_EQ(HC_REVALIDATE_NEVER, hc_config_backend(&run, "store")->revalidate);
}

TEST_HARNESS_MAIN
