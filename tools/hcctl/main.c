// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - HyperCache control utility: command table, global options, help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hypercache_netlink.h"
#include "hcctl.h"

bool hc_opt_json;

static int cmd_help(const struct hcctl_cmd *cmd, int argc, char **argv);
static int cmd_version(const struct hcctl_cmd *cmd, int argc, char **argv);

#define EXIT_STATUS_TEXT \
"EXIT STATUS\n" \
"    0  success\n" \
"    1  the operation failed (the reason is printed on stderr)\n" \
"    2  usage error: unknown option, missing or malformed argument\n"

static const struct hcctl_cmd commands[] = {
{
	.name = "pool create",
	.summary = "write new superblocks to block devices and start the pool",
	.synopsis = "[--force] [--data-offset BYTES] [--json] DEV...",
	.handler = hc_cmd_pool_create,
	.help =
"DESCRIPTION\n"
"    Create a new pool from the block devices DEV... and start it as\n"
"    /dev/hypercache0.  The kernel writes a superblock with a fresh pool UUID\n"
"    to every member.  The order of DEV... is the stripe order: chunk v of the\n"
"    pool lives on member v mod N, so the first DEV is member 0.\n"
"\n"
"    Every DEV is resolved with realpath(3) and must be a block device; the\n"
"    resolved path is what the kernel opens.  The same device must not be\n"
"    given twice.  At most 64 devices make up a pool.\n"
"\n"
"    On success the new pool is printed as by 'hcctl status'.  If the kernel\n"
"    rejects one member, the error names that DEV, e.g.\n"
"        hcctl: /dev/nvme1n1: member of a different pool: Cross-device link\n"
"\n"
"    Before asking the kernel, every DEV is checked as by 'hcctl inspect':\n"
"    a device that holds the root file system, is mounted, used as swap,\n"
"    has holders (dm, md, LVM, bcache) or carries a file system, RAID, LVM,\n"
"    LUKS or partition-table signature is refused, e.g.\n"
"        hcctl: /dev/nvme1n1: unsafe: carries an ext4 file system (use --force to overwrite)\n"
"    Blank devices (NVMe namespaces, loop devices, ...) pass.\n"
"\n"
"OPTIONS\n"
"    -f, --force\n"
"        Skip the safety checks above, and overwrite the superblock of a\n"
"        device that already belongs to a pool (without it the kernel\n"
"        refuses such a device).  The kernel still refuses a device that\n"
"        is open exclusively (mounted, swap, dm, md).\n"
"\n"
"    -o, --data-offset BYTES\n"
"        Byte offset of the data area on every member.  A decimal number,\n"
"        optionally followed by K, M, G or T (binary: 1K = 1024; \"KiB\" and\n"
"        \"KB\" spellings are accepted too).  The kernel rounds it up to the\n"
"        chunk size and to at least 1 MiB.  Default: chosen by the kernel.\n"
"\n"
"    -j, --json\n"
"        Print the pool as one JSON object (see 'hcctl help status').\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl pool create /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1\n"
"    hcctl pool create --force --data-offset 8M /dev/nvme0n1 /dev/nvme1n1\n",
},
{
	.name = "pool assemble",
	.summary = "start an existing pool from its members",
	.synopsis = "[--json] DEV...",
	.handler = hc_cmd_pool_assemble,
	.help =
"DESCRIPTION\n"
"    Read the superblocks of the block devices DEV... and start the pool they\n"
"    describe as /dev/hypercache0.  The devices may be given in any order;\n"
"    the stripe order is taken from the superblocks.  All members of the pool\n"
"    must be given.  Each DEV is resolved and checked as for 'pool create'.\n"
"\n"
"    On success the pool is printed as by 'hcctl status'.  If the kernel\n"
"    rejects one member, the error names that DEV.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print the pool as one JSON object (see 'hcctl help status').\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl pool assemble /dev/nvme2n1 /dev/nvme0n1 /dev/nvme1n1\n",
},
{
	.name = "pool stop",
	.summary = "stop the running pool",
	.synopsis = "",
	.handler = hc_cmd_pool_stop,
	.help =
"DESCRIPTION\n"
"    Stop the running pool and remove /dev/hypercache0.  The members keep\n"
"    their superblocks; 'hcctl pool assemble' starts the pool again.  Prints\n"
"    nothing on success.\n"
"\n"
"    Fails with \"Device or resource busy\" while /dev/hypercache0 is open,\n"
"    and with \"no pool is running\" if there is none.\n"
"\n"
"OPTIONS\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "inspect",
	.summary = "list drives and whether they are safe to use as pool members",
	.synopsis = "[--all] [--root DIR] [--json] [DEV...]",
	.handler = hc_cmd_inspect,
	.help =
"DESCRIPTION\n"
"    Scan /sys/class/block for NVMe namespaces (nvmeXnY; partitions are\n"
"    never candidates) and judge each one, or judge the block devices\n"
"    DEV... given (any kind: loop, dm, partitions).  One line per device:\n"
"\n"
"      DEVICE           VERDICT        SIZE  MODEL                        REASON\n"
"      /dev/nvme0n1     excluded   1.8 TiB  Samsung SSD 990 PRO 2TB      holds the root file system (/ is on dm-0)\n"
"      /dev/nvme1n1     safe       3.5 TiB  SAMSUNG MZQL23T8HCLS-00A07   -\n"
"\n"
"    A device is excluded, with the first reason that applies, if\n"
"      - it holds the root file system: / is on it, on one of its\n"
"        partitions, or on a dm/md/LVM device built on them (slaves are\n"
"        followed), or it is a partition of such a disk;\n"
"      - it or one of its partitions is used as swap (/proc/swaps);\n"
"      - it or one of its partitions is mounted (/proc/self/mountinfo);\n"
"      - it or one of its partitions has holders (dm, md, LVM, bcache);\n"
"      - its size is 0;\n"
"      - libblkid finds a signature on it: a file system (ext4, XFS,\n"
"        Btrfs, ...), ZFS, swap, LUKS, LVM2, md RAID or bcache superblock,\n"
"        or a GPT or MBR partition table.\n"
"    Its verdict is unknown if it cannot be probed (no device node, no\n"
"    permission to read it), and safe otherwise.  A HyperCache superblock\n"
"    is not a signature here: 'pool create' leaves it to the kernel, which\n"
"    refuses such a device without --force.\n"
"\n"
"    'hcctl pool create' runs the same checks on every DEV and refuses a\n"
"    device that is not safe unless --force is given.  The exit status is 0\n"
"    whatever the verdicts are.  Reading signatures needs read access to\n"
"    the device nodes (root).\n"
"\n"
"OPTIONS\n"
"    -a, --all\n"
"        Also consider SCSI/SATA (sd*) and virtio (vd*) disks.\n"
"\n"
"    -r, --root DIR\n"
"        Read sysfs, /proc and /dev below DIR instead of / (a copy of\n"
"        another system's tree, or a test fixture).  A regular file\n"
"        DIR/dev/NAME is probed as the device NAME.\n"
"\n"
"    -j, --json\n"
"        Print one JSON array, one object per device, with raw numbers:\n"
"\n"
"          [{\"device\":\"/dev/nvme1n1\",\"name\":\"nvme1n1\",\"dev\":\"259:3\",\n"
"            \"size\":3840755982336,\"model\":\"...\",\"serial\":\"...\",\n"
"            \"verdict\":\"excluded\",\"reason\":\"signature\",\n"
"            \"detail\":\"carries an ext4 file system\",\"signature\":\"ext4\"}]\n"
"\n"
"        verdict: safe, excluded or unknown.  reason: none, root, swap,\n"
"        mounted, holders, empty, signature or probe.  model, serial,\n"
"        detail and signature are left out when empty.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl inspect\n"
"    hcctl inspect --json | jq -r '.[] | select(.verdict == \"safe\") | .device'\n"
"    hcctl inspect /dev/nvme1n1 /dev/loop0\n",
},
{
	.name = "status",
	.summary = "describe the running pool",
	.synopsis = "[--json]",
	.handler = hc_cmd_status,
	.help =
"DESCRIPTION\n"
"    Describe the running pool.  Text output:\n"
"\n"
"      pool UUID  STATE  /dev/DISK (MAJOR:MINOR)\n"
"        capacity SIZE (N chunks of SIZE), N members, format vN, data offset SIZE\n"
"        member INDEX  NAME  (MAJOR:MINOR)  uuid UUID  SIZE  N chunks\n"
"        ...\n"
"\n"
"    Sizes are shown in B/KiB/MiB/GiB/TiB.  With --json one object is\n"
"    printed, with raw numbers (bytes) and members sorted by index:\n"
"\n"
"      {\"pool\":{\"uuid\":\"...\",\"state\":\"running\",\"disk\":\"hypercache0\",\n"
"        \"dev\":\"252:0\",\"format_version\":1,\"chunk_size\":4194304,\n"
"        \"member_count\":3,\"chunks\":176,\"capacity\":738197504,\n"
"        \"data_offset\":4194304,\"members\":[{\"index\":0,\"name\":\"nvme0n1\",\n"
"        \"dev\":\"259:0\",\"uuid\":\"...\",\"bytes\":268435456,\"chunks\":58},...]}}\n"
"\n"
"    A key is left out if the kernel did not report the value.\n"
"\n"
"    If no pool is running, text mode prints \"no pool is running\" on stderr\n"
"    and exits 1; --json prints {\"pool\":null} and exits 0, so that scripts\n"
"    can probe.  Does not need privileges.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print one JSON object.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "monitor",
	.summary = "print pool events as they happen",
	.synopsis = "[--json] [--count N]",
	.handler = hc_cmd_monitor,
	.help =
"DESCRIPTION\n"
"    Listen on the \"events\" multicast group of the hypercache netlink family\n"
"    and print one line per event (a pool started or stopped):\n"
"\n"
"      pool UUID STATE DISK\n"
"\n"
"    With --json, each line is one JSON object shaped like the \"pool\" object\n"
"    of 'hcctl status --json' plus \"event\":\"pool\".  Output is flushed after\n"
"    every line.  Runs until SIGINT or SIGTERM (then exits 0).  Does not need\n"
"    privileges.\n"
"\n"
"OPTIONS\n"
"    -c, --count N\n"
"        Exit after N events.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object per line.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "geometry",
	.summary = "show the stripe geometry of a HyperCache device (ioctl)",
	.synopsis = "[--json] [DEV]",
	.handler = hc_cmd_geometry,
	.help =
"DESCRIPTION\n"
"    Open DEV (default /dev/hypercache0) read-only and query its geometry\n"
"    with the HC_IOC_GEOMETRY ioctl: pool UUID, chunk size, member count,\n"
"    chunks and capacity.  Chunk v of the device lives on member v mod\n"
"    member_count.  With --json:\n"
"\n"
"      {\"device\":\"/dev/hypercache0\",\"uuid\":\"...\",\"chunk_size\":4194304,\n"
"       \"member_count\":3,\"chunks\":176,\"capacity\":738197504}\n"
"\n"
"    Fails with \"not a HyperCache device\" on other files and with \"the pool\n"
"    has stopped\" if the pool behind an open device went away.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print one JSON object.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "put",
	.summary = "write a file into the cache as an object",
	.synopsis = "[--clean] [--replace] [--crc] [--sync [--timeout S]]\n"
		    "          [--no-progress] [--json] FILE URI",
	.handler = hc_cmd_put,
	.help =
"DESCRIPTION\n"
"    Store the regular file FILE in the object cache under URI:\n"
"\n"
"    1. HC_IOC_STAGE on /dev/hypercache-ctl allocates chunks for the file's\n"
"       size and returns them as at most 64 extents of /dev/hypercache0;\n"
"    2. FILE is copied into those extents with O_DIRECT writes of up to\n"
"       4 MiB (the last block is padded with zeroes to the device's logical\n"
"       block size; the object keeps the file's exact size);\n"
"    3. /dev/hypercache0 is flushed (fdatasync);\n"
"    4. HC_IOC_COMMIT makes the object durable: DIRTY (not yet in the\n"
"       backend), or READY with --clean.\n"
"\n"
"    If anything fails after the stage, hcctl aborts it (HC_IOC_ABORT); the\n"
"    kernel also aborts it when hcctl exits or is killed.  FILE must not\n"
"    change while it is copied (a file that shrinks or grows is an error).\n"
"\n"
"    URI is taken as the bytes given: 1 to 1024 bytes.  On success prints\n"
"\n"
"      URI: N bytes in K extents, generation G\n"
"\n"
"    With --json:\n"
"\n"
"      {\"uri\":\"...\",\"size\":N,\"generation\":G,\"state\":\"dirty\",\n"
"       \"crc32c\":C,\"commit_seconds\":T,\"sync_seconds\":U,\n"
"       \"extents\":[{\"offset\":O,\"length\":L},...]}\n"
"\n"
"    (\"crc32c\" only with --crc, \"sync_seconds\" only with --sync).  URIs\n"
"    are printed with bytes outside printable ASCII, and the backslash,\n"
"    escaped as \\xNN.\n"
"\n"
"    With --sync, put then waits until hypercached has uploaded the object\n"
"    and the kernel marked it clean (READY), polling LOCATE with PEEK every\n"
"    20 ms, and prints a second line\n"
"\n"
"      committed in T s, synced U s later\n"
"\n"
"    T is the commit latency (STAGE issued to COMMIT returned: what a\n"
"    writer waits for), U the write-back time after it.\n"
"\n"
"OPTIONS\n"
"    --clean\n"
"        The backend already holds this data: commit the object READY\n"
"        (HC_COMMIT_F_CLEAN) instead of DIRTY, so it is never uploaded.\n"
"\n"
"    --replace\n"
"        If URI is cached, replace it (HC_STAGE_F_REPLACE).  Without it an\n"
"        existing object is an error (\"already cached\").  An object that is\n"
"        held, pinned, dirty or being synced cannot be replaced (EBUSY).\n"
"\n"
"    --crc\n"
"        Compute the CRC-32C (Castagnoli) of the file's bytes while copying\n"
"        and give it to the kernel with the commit (HC_COMMIT_F_CRC).\n"
"\n"
"    --sync\n"
"        After the commit, wait until the object is in the backend (clean).\n"
"        Fails if it is replaced or removed meanwhile, or on the timeout.\n"
"\n"
"    --timeout S\n"
"        With --sync, give up after S seconds (default 300; 0 waits for\n"
"        ever).  The object stays committed and is uploaded later.\n"
"\n"
"    --no-progress\n"
"        No progress bar.  The bar (bytes, percent, MiB/s) is drawn on\n"
"        stderr only when stderr is a terminal.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs write access to /dev/hypercache-ctl and /dev/hypercache0.\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl put --clean --crc model.safetensors s3://models/llama/model.safetensors\n",
},
{
	.name = "get",
	.summary = "read an object from the cache",
	.synopsis = "[-o FILE] [--no-progress] [--no-ingest] [--timeout S] URI",
	.handler = hc_cmd_get,
	.help =
"DESCRIPTION\n"
"    Read the object URI from the cache and write its bytes to stdout, or to\n"
"    FILE with -o.  HC_IOC_LOCATE with HC_LOCATE_F_HOLD finds the object and\n"
"    holds it (it cannot be evicted or replaced while held); its extents are\n"
"    read from /dev/hypercache0 with O_DIRECT reads of up to 4 MiB, exactly\n"
"    the object's size is written, and the hold is dropped (HC_IOC_RELEASE;\n"
"    also when hcctl exits).\n"
"\n"
"    On a miss the kernel asks the helper to fetch the object from its\n"
"    backend (HC_LOCATE_F_AUTO_INGEST) and hcctl waits for it\n"
"    (HC_LOCATE_F_WAIT) up to --timeout seconds.  The helper's error (for\n"
"    example \"No such file or directory\" for a missing key) is reported.\n"
"\n"
"    Fails with \"not cached\" if URI is not in the cache and --no-ingest\n"
"    is given, or if the cache did not admit it (read the backend directly\n"
"    then); with \"not yet valid\" while it is staged.  A FILE that hcctl\n"
"    created is removed if the copy fails.\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE\n"
"        Write to FILE (created, or truncated if it exists) instead of\n"
"        stdout.\n"
"\n"
"    --no-progress\n"
"        No progress bar.  The bar is drawn on stderr only when stderr is a\n"
"        terminal.\n"
"\n"
"    --no-ingest\n"
"        Read only what is cached: a miss fails at once.\n"
"\n"
"    --timeout SECONDS\n"
"        How long to wait for an ingest (default 300; 0 waits until\n"
"        interrupted).\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs read access to /dev/hypercache-ctl and /dev/hypercache0.\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl get -o /tmp/model.bin s3://models/llama/model.safetensors\n"
"    hcctl get s3://datasets/shard-0001.tar | tar -x\n",
},
{
	.name = "locate",
	.summary = "show where an object is cached",
	.synopsis = "[--layout] [--json] URI",
	.handler = hc_cmd_locate,
	.help =
"DESCRIPTION\n"
"    Look up URI with HC_IOC_LOCATE (without a hold) and print:\n"
"\n"
"      uri         URI\n"
"      status      hit | miss | pending | not-admitted\n"
"      state       ingesting | ready | staged | dirty | syncing\n"
"      size        SIZE (N bytes)\n"
"      generation  G\n"
"      flags       pinned,data-crc (or -)\n"
"      extents     K\n"
"        offset              length\n"
"        OFFSET              LENGTH      (bytes in /dev/hypercache0)\n"
"\n"
"    On a miss only uri and status are printed.  The exit status is 0\n"
"    whatever the status is.\n"
"\n"
"OPTIONS\n"
"    -l, --layout\n"
"        Also print where every chunk of the object lives:\n"
"\n"
"          layout      N chunks of 4 MiB\n"
"            chunk  member  device   member offset  device offset  length\n"
"\n"
"        chunk is the object's chunk index, member the member index and\n"
"        device its block device (from 'hcctl status'), member offset the\n"
"        byte offset on that device, device offset the byte offset in\n"
"        /dev/hypercache0, length the object's bytes in the chunk.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object:\n"
"\n"
"          {\"uri\":\"...\",\"status\":\"hit\",\"state\":\"ready\",\"size\":N,\n"
"           \"generation\":G,\"flags\":F,\"pinned\":false,\n"
"           \"extents\":[{\"offset\":O,\"length\":L},...],\n"
"           \"chunk_size\":4194304,\"layout\":[{\"chunk\":0,\"member\":1,\n"
"           \"device\":\"nvme1n1\",\"member_offset\":M,\"dev_offset\":D,\n"
"           \"length\":L},...]}\n"
"\n"
"        (chunk_size and layout only with --layout; on a miss only uri and\n"
"        status).\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs read access to /dev/hypercache-ctl.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "preload",
	.summary = "make objects cached: fetch every URI that is not",
	.synopsis = "[--parallel P] [--timeout SECONDS] [--no-progress] [--json] URI...",
	.handler = hc_cmd_preload,
	.help =
"DESCRIPTION\n"
"    Make sure every URI is cached, as 'hcctl get' would, without reading\n"
"    the data: HC_IOC_LOCATE with HC_LOCATE_F_AUTO_INGEST | HC_LOCATE_F_WAIT,\n"
"    so a miss asks the helper (hypercached) to fetch the object and waits\n"
"    for it.  A PEEK before tells whether the object was there already (it\n"
"    counts for neither the policy nor the counters).  Up to P URIs are in\n"
"    flight at once, each thread with its own /dev/hypercache-ctl fd; the\n"
"    kernel joins concurrent LOCATEs of one URI to one ingest.\n"
"\n"
"    At the end a summary goes to stdout:\n"
"\n"
"      preloaded 3 objects, 1.2 GiB in 4.10 s (0.31 GB/s): 1 already cached, 1 ingested, 1 failed\n"
"\n"
"    bytes are those of every object now cached (already cached or\n"
"    ingested); GB/s is bytes / seconds (10^9 bytes).  Every failure is\n"
"    printed on stderr after the summary's figures are known, in the order\n"
"    of the URIs, as 'hcctl get' prints it:\n"
"\n"
"      hcctl: hypercache://store/x: not cached: No such file or directory\n"
"\n"
"OPTIONS\n"
"    -P, --parallel P\n"
"        URIs in flight at once, 1..64 (default 4).\n"
"\n"
"    --timeout SECONDS\n"
"        How long to wait for each object's ingest (default 300; 0 waits\n"
"        until interrupted).\n"
"\n"
"    --no-progress\n"
"        No progress bar.  By default objects and bytes done are shown on\n"
"        stderr when stderr is a terminal.\n"
"\n"
"    -j, --json\n"
"        Print the summary as one JSON object:\n"
"\n"
"          {\"objects\":N,\"bytes\":B,\"bytes_ingested\":B,\"seconds\":S,\n"
"           \"gb_per_s\":R,\"hits\":H,\"ingested\":I,\"failed\":F,\n"
"           \"failures\":[{\"uri\":\"...\",\"errno\":E,\"error\":\"...\"},...]}\n"
"\n"
"        hits are the objects that were cached already; errno is 0 for a\n"
"        failure that has none (not admitted).\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs read access to /dev/hypercache-ctl.\n"
"\n"
"EXIT STATUS\n"
"    0  every URI is cached\n"
"    1  at least one URI failed (each is printed on stderr), or nothing\n"
"       could be done\n"
"    2  usage error: unknown option, missing or malformed argument\n"
"\n"
"EXAMPLES\n"
"    hcctl preload s3://models/llama/config.json s3://models/llama/model.safetensors\n"
"    hcctl preload --parallel 8 --json $(cat shards.txt)\n",
},
{
	.name = "preload-batch",
	.summary = "preload every object under a prefix, or this node's share",
	.synopsis = "--prefix URI_PREFIX [--sharded [--node-count N] [--node-index I]]\n"
		    "          [--config FILE] [--list] [--parallel P] [--timeout SECONDS]\n"
		    "          [--no-progress] [--json]",
	.handler = hc_cmd_preload_batch,
	.help =
"DESCRIPTION\n"
"    List the objects whose URI starts with URI_PREFIX and preload them as\n"
"    'hcctl preload' does.  The backends come from hypercached's\n"
"    configuration file:\n"
"\n"
"      hypercache://NAME/PREFIX of a posix backend\n"
"          the regular files under ROOT whose path relative to ROOT (the\n"
"          key) starts with PREFIX; only the prefix's directory is walked,\n"
"          symbolic links are not followed, an unreadable directory fails\n"
"          the listing.\n"
"      s3://BUCKET/PREFIX (the default_backend)\n"
"      hypercache://NAME/BUCKET/PREFIX of an s3 backend\n"
"          ListObjectsV2 of BUCKET under PREFIX, with the backend's\n"
"          credentials (config, AWS_* environment, shared credentials file).\n"
"          Needs an hcctl built with the S3 client (helper/s3.c); without\n"
"          it the listing fails with \"Operation not supported\".\n"
"\n"
"    PREFIX may be empty (hypercache://NAME/ lists everything).  The objects\n"
"    are sorted by key (bytewise).  Listing nothing is an error.\n"
"\n"
"    With --sharded, the central controller's sharding: item i of the sorted\n"
"    list belongs to node i mod N, and only this node's items are preloaded,\n"
"    so N nodes that run the same command each cache a disjoint share and\n"
"    together all of it.  This node's index I and N come from the first of:\n"
"\n"
"      --node-index I          N from --node-count, else HC_NODE_COUNT\n"
"      SLURM_NODEID            N from --node-count, else SLURM_NNODES\n"
"      RANK                    N from --node-count, else WORLD_SIZE\n"
"      JOB_COMPLETION_INDEX    N from --node-count, else HC_NODE_COUNT\n"
"                              (a Kubernetes indexed Job)\n"
"\n"
"    An empty variable counts as unset.  A value that is not plain decimal,\n"
"    N = 0 or I >= N is refused naming its option or variable, e.g.\n"
"        hcctl: preload-batch: SLURM_NODEID 4 is not below SLURM_NNODES 4 (indexes count from 0)\n"
"    (with torchrun, RANK and WORLD_SIZE count processes: run it on every\n"
"    rank and each node caches the share of its ranks).\n"
"\n"
"    Before preloading, a sharded run prints on stdout\n"
"      PREFIX: L listed, node I of N (SOURCE, SOURCE): K to preload\n"
"    then the summary of 'hcctl preload'.\n"
"\n"
"OPTIONS\n"
"    --prefix URI_PREFIX\n"
"        What to list (required).\n"
"\n"
"    --sharded\n"
"        Preload only this node's share (above).\n"
"\n"
"    --node-count N, --node-index I\n"
"        The node count and this node's index (0..N-1); need --sharded.\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default /etc/hypercache/hypercache.conf).\n"
"\n"
"    --list\n"
"        Print the URIs this node would preload, one per line (with --json:\n"
"        {...,\"uris\":[...]}), and do nothing else.\n"
"\n"
"    -P, --parallel P, --timeout SECONDS, --no-progress\n"
"        As for 'hcctl preload'.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object: the fields of 'hcctl preload --json' and\n"
"\n"
"          \"prefix\":\"...\",\"listed\":L\n"
"\n"
"        and with --sharded \"node_index\":I,\"node_count\":N,\n"
"        \"index_source\":\"...\",\"count_source\":\"...\".  objects counts\n"
"        this node's objects, listed all of them.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs read access to /dev/hypercache-ctl and to the configuration.\n"
"\n"
"EXIT STATUS\n"
"    0  every object of this node's share is cached\n"
"    1  an object failed, the listing failed or listed nothing\n"
"    2  usage error, or bad --node-count/--node-index or variable\n"
"\n"
"EXAMPLES\n"
"    hcctl preload-batch --prefix s3://tokens/shard_ --sharded\n"
"    hcctl preload-batch --prefix hypercache://nfs/ds/shard_ --sharded \\\n"
"          --node-count 2 --node-index 0 --json\n"
"    JOB_COMPLETION_INDEX=3 HC_NODE_COUNT=8 hcctl preload-batch \\\n"
"          --prefix s3://tokens/ --sharded --list\n",
},
{
	.name = "flush",
	.summary = "flush a dataset (the cached objects under a prefix) to its backend",
	.synopsis = "[--sync] [--width W] [--config FILE] [--no-progress] [--json] PREFIX\n"
"    hcctl flush --status [--config FILE] [--json] PREFIX",
	.handler = hc_cmd_flush,
	.help =
"DESCRIPTION\n"
"    Write the dataset PREFIX to its backend the way SCR flushes a\n"
"    checkpoint.  PREFIX is a URI ending in '/', PARENT/NAME/, e.g.\n"
"    s3://bkt/ckpt/run1/step-100/ (parent s3://bkt/ckpt/run1/, name\n"
"    step-100).  Its files are the cached objects whose URI starts with\n"
"    PREFIX (HC_CMD_OBJ_GET dump); each is read through the cache\n"
"    (HC_IOC_LOCATE with HC_LOCATE_F_HOLD, O_DIRECT reads of\n"
"    /dev/hypercache0) and written to the same key in the backend that\n"
"    hypercached's configuration gives the URI.  The steps:\n"
"\n"
"      (a) write the marker PARENT/.hypercache/flushing/NAME (a dataset\n"
"          flushed before is marked incomplete in the index first);\n"
"      (b) upload every file through a window of at most W writers, each\n"
"          with its own connection, computing its size and CRC32; a\n"
"          failed writer makes the others stop early;\n"
"      (c) write the summary PREFIX.hypercache/summary.json (the files,\n"
"          their sizes and CRC32s), after every file;\n"
"      (d) update PARENT/.hypercache/index.json: NAME complete and\n"
"          \"current\", the older datasets kept;\n"
"      (e) remove the marker.\n"
"\n"
"    A crash at any step leaves the old current dataset or the new one\n"
"    current, never one without its summary; running 'hcctl flush' again\n"
"    finishes it (a marker left behind means: redo).  See\n"
"    Documentation/flush.md.\n"
"\n"
"    A dataset that the index lists complete with the same files (keys,\n"
"    sizes and cache generations) is not flushed again: \"already\n"
"    flushed\", exit 0.  One flush of a dataset runs at a time: it holds\n"
"    flock(2) on /run/hypercache/flush-HASH.lock.\n"
"\n"
"    Without --sync the flush runs in the background: hcctl checks its\n"
"    arguments, takes the lock, forks, prints the child's pid and its log\n"
"    (/run/hypercache/flush-HASH.log) and exits 0; if a flush of the\n"
"    dataset is already running it says so and exits 0.  With --sync it\n"
"    runs in the foreground; if an asynchronous flush of the dataset is\n"
"    running it waits for it, then checks whether the dataset still needs\n"
"    flushing.  On success prints\n"
"\n"
"      flushed PREFIX: N files, SIZE (B bytes) in S s (R MB/s); ...\n"
"\n"
"    and draws a progress bar on stderr when it is a terminal.\n"
"\n"
"OPTIONS\n"
"    --sync\n"
"        Flush in the foreground (above).\n"
"\n"
"    -w, --width W\n"
"        At most W files are uploaded at once (1..64, default 4).\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default /etc/hypercache/hypercache.conf).\n"
"\n"
"    --status\n"
"        Report the dataset's state and exit 0:\n"
"          not flushed   the index does not list it complete;\n"
"          flushing      the marker is present and a flush holds the lock;\n"
"          interrupted   the marker is present and no flush runs (run\n"
"                        'hcctl flush PREFIX' again);\n"
"          flushed       complete in the index (current or not), with its\n"
"                        file count and bytes.\n"
"\n"
"    --no-progress\n"
"        No progress bar.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object: {\"prefix\",\"dataset\",\"state\",\"already\",\n"
"        \"files\",\"bytes\",\"seconds\",\"mb_per_s\"}; with --status\n"
"        {\"prefix\",\"dataset\",\"state\",\"marker\",\"locked\",\"current\",\n"
"        \"complete\",\"files\",\"bytes\",\"flushed_at\",\"log\"}.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"ENVIRONMENT\n"
"    HC_FLUSH_CRASH_AFTER=k  (tests) _exit(137) right after step k (1..5 =\n"
"                            a..e).\n"
"    HC_FLUSH_DELAY_MS=N     (tests) sleep N ms after each file.\n"
"\n"
"    Needs read access to /dev/hypercache-ctl and /dev/hypercache0, write\n"
"    access to /run/hypercache, and the backend's credentials (as\n"
"    hypercached finds them).\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl flush --sync --width 8 s3://bkt/ckpt/run1/step-100/\n"
"    hcctl flush --status s3://bkt/ckpt/run1/step-100/\n",
},
{
	.name = "restore",
	.summary = "preload the newest complete dataset of a parent prefix",
	.synopsis = "[--dataset NAME] [--timeout S] [--config FILE] [--json] PARENT_PREFIX",
	.handler = hc_cmd_restore,
	.help =
"DESCRIPTION\n"
"    Bring a flushed dataset of PARENT_PREFIX (a URI ending in '/') back\n"
"    into the cache, the way SCR restarts from a checkpoint: read\n"
"    PARENT_PREFIX.hypercache/index.json; try the current dataset, then\n"
"    the older complete ones, newest first, skipping incomplete ones.  A\n"
"    dataset is taken when its summary parses and every file it lists\n"
"    reads back from the backend with the summary's size and CRC32; a\n"
"    mismatch refuses that dataset with a message naming the file, e.g.\n"
"        hcctl: s3://b/ck/step-2/: refused: file rank0.pt: CRC32 0x1b2c..., the summary says 0x...\n"
"    and restore falls back to an older one, or fails if none is left.\n"
"\n"
"    The files of the dataset taken are then preloaded as by 'hcctl\n"
"    preload' (HC_IOC_LOCATE with AUTO_INGEST | WAIT: hypercached, running\n"
"    with the same configuration, ingests them) and read back through the\n"
"    cache to check their CRC32 again; a stale cached copy is evicted and\n"
"    ingested again.  Prints\n"
"\n"
"      restored dataset NAME of PARENT_PREFIX: N files, B bytes in S s\n"
"\n"
"    with \" (fell back from CURRENT)\" when it is not the current one.\n"
"\n"
"OPTIONS\n"
"    --dataset NAME\n"
"        Restore NAME only (no fallback).\n"
"\n"
"    --timeout SECONDS\n"
"        How long to wait for each ingest (default 300).\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default /etc/hypercache/hypercache.conf).\n"
"\n"
"    -j, --json\n"
"        Print one JSON object: {\"parent\",\"dataset\",\"current\",\n"
"        \"fell_back\",\"files\",\"bytes\",\"seconds\",\"refused\":[{\"dataset\",\n"
"        \"reason\"}]}.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs hypercached running (for the ingest) and read access to\n"
"    /dev/hypercache-ctl and /dev/hypercache0.\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl restore s3://bkt/ckpt/run1/\n"
"    hcctl restore --dataset step-100 --json s3://bkt/ckpt/run1/\n",
},
{
	.name = "ls",
	.summary = "list the cached objects",
	.synopsis = "[--dirty] [--json]",
	.handler = hc_cmd_ls,
	.help =
"DESCRIPTION\n"
"    List every object of the cache (HC_CMD_OBJ_GET dump), sorted by URI,\n"
"    one per line:\n"
"\n"
"      STATE      FLAGS        SIZE  GENERATION  HOLDS  EXTENTS  URI\n"
"      ready      P-       1.0 GiB           7      0        2  s3://m/a\n"
"\n"
"    FLAGS: P pinned, C the data's CRC-32C is recorded, - not set.  SIZE is\n"
"    in B/KiB/MiB/GiB/TiB; HOLDS counts the holds of all processes.  URIs\n"
"    are printed with bytes outside printable ASCII, and the backslash,\n"
"    escaped as \\xNN.  A value the kernel did not send prints as -.\n"
"\n"
"OPTIONS\n"
"    -d, --dirty\n"
"        Only the objects the backend does not have yet (dirty or syncing).\n"
"\n"
"    -j, --json\n"
"        Print one JSON object with raw numbers:\n"
"\n"
"          {\"objects\":[{\"uri\":\"...\",\"state\":\"ready\",\"flags\":1,\n"
"            \"pinned\":true,\"size\":N,\"generation\":G,\"chunks\":C,\n"
"            \"holds\":H,\"extents\":[{\"offset\":O,\"length\":L},...]},...]}\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs read access to /dev/hypercache-ctl (hcctl passes it open to\n"
"    the kernel) or CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "evict",
	.summary = "remove an object from the cache",
	.synopsis = "URI",
	.handler = hc_cmd_evict,
	.help =
"DESCRIPTION\n"
"    Evict the object URI (HC_CMD_OBJ_EVICT): its chunks become free.  Only\n"
"    an idle, clean, unpinned object can be evicted; one that is held,\n"
"    staged, ingesting, pinned, dirty or being synced fails with \"Device or\n"
"    resource busy\".  Prints nothing on success.\n"
"\n"
"OPTIONS\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "pin",
	.summary = "keep an object in the cache",
	.synopsis = "URI",
	.handler = hc_cmd_pin,
	.help =
"DESCRIPTION\n"
"    Pin the object URI (HC_CMD_OBJ_PIN with pinned = 1): the policy never\n"
"    evicts a pinned object, and 'hcctl evict' refuses it.  Pinning a pinned\n"
"    object is not an error.  Prints nothing on success.\n"
"\n"
"OPTIONS\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "unpin",
	.summary = "let the policy evict an object again",
	.synopsis = "URI",
	.handler = hc_cmd_unpin,
	.help =
"DESCRIPTION\n"
"    Clear the pin of the object URI (HC_CMD_OBJ_PIN with pinned = 0).\n"
"    Prints nothing on success.\n"
"\n"
"OPTIONS\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "stats",
	.summary = "show the object cache's counters",
	.synopsis = "[--json]",
	.handler = hc_cmd_stats,
	.help =
"DESCRIPTION\n"
"    Print the counters of the object cache (HC_CMD_STATS_GET):\n"
"\n"
"      hits        LOCATEs that found valid data\n"
"      misses      LOCATEs that did not\n"
"      hit ratio   hits / (hits + misses), - before the first LOCATE\n"
"      admissions  objects the policy admitted\n"
"      rejections  objects the policy refused\n"
"      evictions   objects evicted (by the policy or by 'hcctl evict')\n"
"      objects     objects indexed\n"
"      used        USED of CAPACITY (PERCENT)\n"
"      by state    ingesting N, ready N, staged N, dirty N, syncing N\n"
"      pinned      pinned objects\n"
"      held        objects with at least one hold\n"
"      dirty       bytes of dirty and syncing objects (the dirty limit)\n"
"      uploaded    uploads the egress helper acknowledged\n"
"      upload fail upload attempts that failed\n"
"\n"
"    A value the kernel did not send prints as -.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print one JSON object with raw numbers:\n"
"\n"
"          {\"stats\":{\"hits\":N,\"misses\":N,\"admissions\":N,\n"
"            \"rejections\":N,\"evictions\":N,\"objects\":N,\"bytes_used\":N,\n"
"            \"capacity\":N,\"pinned\":N,\"held\":N,\"dirty_bytes\":N,\n"
"            \"dirty_limit\":N,\"egress_done\":N,\"egress_failed\":N,\"by_state\":{\n"
"            \"ingesting\":N,\"ready\":N,\"staged\":N,\"dirty\":N,\"syncing\":N}}}\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs read access to /dev/hypercache-ctl (hcctl passes it open to\n"
"    the kernel) or CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "help",
	.summary = "show help for hcctl or for one command",
	.synopsis = "[COMMAND...]",
	.handler = cmd_help,
	.help =
"DESCRIPTION\n"
"    Without arguments, list the commands.  With a command name (one or two\n"
"    words, e.g. 'hcctl help pool create'), show its manual.  The same text\n"
"    is shown by 'hcctl COMMAND --help'.\n",
},
{
	.name = "version",
	.summary = "show the version of hcctl",
	.synopsis = "",
	.handler = cmd_version,
	.help =
"DESCRIPTION\n"
"    Print the version of hcctl and of the netlink family it speaks.  Same as\n"
"    'hcctl --version'.\n",
},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* --- diagnostics --------------------------------------------------------- */

void hc_err_hint(const char *object, const char *reason, int errnum,
		 const char *hint)
{
	fputs("hcctl", stderr);
	if (object)
		fprintf(stderr, ": %s", object);
	if (reason)
		fprintf(stderr, ": %s", reason);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	if (hint)
		fprintf(stderr, " %s", hint);
	fputc('\n', stderr);
}

void hc_err(const char *object, const char *reason, int errnum)
{
	hc_err_hint(object, reason, errnum, NULL);
}

void hc_errf(const char *object, int errnum, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hc_err(object, buf, errnum);
}

static void print_try(const struct hcctl_cmd *cmd)
{
	if (cmd) {
		fprintf(stderr, "Usage: hcctl %s%s%s\n", cmd->name,
			cmd->synopsis[0] ? " " : "", cmd->synopsis);
		fprintf(stderr, "Try 'hcctl %s --help' for more information.\n",
			cmd->name);
	} else {
		fputs("Try 'hcctl --help' for more information.\n", stderr);
	}
}

int hc_usage_error(const struct hcctl_cmd *cmd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hc_err(cmd ? cmd->name : NULL, buf, 0);
	print_try(cmd);
	return HC_EXIT_USAGE;
}

/* Turn getopt_long()'s ':' / '?' (with opterr = 0) into a usage error. */
int hc_getopt_error(const struct hcctl_cmd *cmd, int c, int optopt_, char **argv,
		    int optind_)
{
	const char *arg = optind_ > 0 ? argv[optind_ - 1] : "?";

	if (c == ':') {
		if (optopt_ && strncmp(arg, "--", 2) != 0)
			return hc_usage_error(cmd, "option requires an argument -- '%c'",
					      optopt_);
		return hc_usage_error(cmd, "option '%s' requires an argument", arg);
	}
	if (optopt_)
		return hc_usage_error(cmd, "invalid option -- '%c'", optopt_);
	return hc_usage_error(cmd, "unrecognized option '%s'", arg);
}

/* --- help ------------------------------------------------------------------ */

void hc_print_help(const struct hcctl_cmd *cmd, FILE *f)
{
	fprintf(f, "NAME\n    hcctl %s - %s\n\n", cmd->name, cmd->summary);
	fprintf(f, "SYNOPSIS\n    hcctl %s%s%s\n\n", cmd->name,
		cmd->synopsis[0] ? " " : "", cmd->synopsis);
	fputs(cmd->help, f);
}

static void print_command_list(FILE *f, const char *prefix)
{
	size_t i, plen = prefix ? strlen(prefix) : 0;

	for (i = 0; i < NCOMMANDS; i++) {
		if (prefix && (strncmp(commands[i].name, prefix, plen) != 0 ||
			       commands[i].name[plen] != ' '))
			continue;
		fprintf(f, "    %-15s %s\n", commands[i].name,
			commands[i].summary);
	}
}

static void print_main_help(FILE *f)
{
	fputs(
"NAME\n"
"    hcctl - control HyperCache pools\n"
"\n"
"SYNOPSIS\n"
"    hcctl [--json] COMMAND [OPTIONS] [ARGS...]\n"
"    hcctl help [COMMAND]\n"
"    hcctl --version\n"
"\n"
"DESCRIPTION\n"
"    hcctl talks to the hypercache kernel module over generic netlink (family\n"
"    \"hypercache\") to create, assemble, stop and describe the pool that\n"
"    stripes 4 MiB chunks over NVMe block devices and presents\n"
"    /dev/hypercache0, and through the ioctls of /dev/hypercache-ctl to put\n"
"    objects into its object cache, read them back and inspect them.\n"
"\n"
"COMMANDS\n", f);
	print_command_list(f, NULL);
	fputs(
"\n"
"GLOBAL OPTIONS\n"
"    -j, --json     print machine-readable JSON on stdout (where supported)\n"
"    -h, --help     show this help\n"
"    -V, --version  show the version\n"
"\n"
"    Run 'hcctl help COMMAND' or 'hcctl COMMAND --help' for a command's\n"
"    manual.\n"
"\n"
"DIAGNOSTICS\n"
"    Errors are printed on stderr as \"hcctl: OBJECT: REASON: ERROR\", where\n"
"    OBJECT is the command or the device concerned.\n"
"\n"
EXIT_STATUS_TEXT, f);
}

static void print_noun_help(FILE *f, const char *noun)
{
	fprintf(f, "Usage: hcctl %s COMMAND [OPTIONS] [ARGS...]\n\nCommands:\n",
		noun);
	print_command_list(f, noun);
	fprintf(f, "\nRun 'hcctl help %s COMMAND' for a command's manual.\n",
		noun);
}

static bool is_noun(const char *word)
{
	size_t i, len = strlen(word);

	for (i = 0; i < NCOMMANDS; i++)
		if (!strncmp(commands[i].name, word, len) &&
		    commands[i].name[len] == ' ')
			return true;
	return false;
}

/*
 * Find the command named by the first one or two words of argv.  Sets
 * *nwords to the number of words used.
 */
static const struct hcctl_cmd *find_command(int argc, char **argv, int *nwords)
{
	size_t i, len;

	for (i = 0; i < NCOMMANDS; i++) {
		const char *name = commands[i].name;
		const char *sp = strchr(name, ' ');

		if (!sp) {
			if (argc >= 1 && !strcmp(argv[0], name)) {
				*nwords = 1;
				return &commands[i];
			}
			continue;
		}
		len = (size_t)(sp - name);
		if (argc >= 2 && strlen(argv[0]) == len &&
		    !strncmp(argv[0], name, len) && !strcmp(argv[1], sp + 1)) {
			*nwords = 2;
			return &commands[i];
		}
	}
	return NULL;
}

static int cmd_help(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	const struct hcctl_cmd *target;
	int nwords;

	/* argv[0] is "help" */
	argc--;
	argv++;
	if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		hc_print_help(cmd, stdout);
		return HC_EXIT_OK;
	}
	if (argc == 0) {
		print_main_help(stdout);
		return HC_EXIT_OK;
	}
	target = find_command(argc, argv, &nwords);
	if (target && nwords == argc) {
		hc_print_help(target, stdout);
		return HC_EXIT_OK;
	}
	if (argc == 1 && is_noun(argv[0])) {
		print_noun_help(stdout, argv[0]);
		return HC_EXIT_OK;
	}
	if (target)
		return hc_usage_error(cmd, "unexpected argument '%s'",
				      argv[nwords]);
	if (argc >= 2 && is_noun(argv[0]))
		return hc_usage_error(cmd, "unknown command '%s %s'",
				      argv[0], argv[1]);
	return hc_usage_error(cmd, "unknown command '%s'", argv[0]);
}

static void print_version(void)
{
	printf("hcctl %s (netlink family \"%s\" version %d)\n", HCCTL_VERSION,
	       HC_GENL_NAME, HC_GENL_VERSION);
}

static int cmd_version(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			hc_print_help(cmd, stdout);
			return HC_EXIT_OK;
		}
		return hc_usage_error(cmd, "unexpected argument '%s'", argv[1]);
	}
	print_version();
	return HC_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",    no_argument, NULL, 'j' },
		{ "help",    no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const struct hcctl_cmd *cmd;
	int c, nwords, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			hc_opt_json = true;
			break;
		case 'h':
			print_main_help(stdout);
			return HC_EXIT_OK;
		case 'V':
			print_version();
			return HC_EXIT_OK;
		default:
			return hc_getopt_error(NULL, c, optopt, argv, optind);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		hc_err(NULL, "no command given", 0);
		print_try(NULL);
		return HC_EXIT_USAGE;
	}

	cmd = find_command(argc, argv, &nwords);
	if (!cmd) {
		if (is_noun(argv[0])) {
			if (argc == 1) {
				hc_errf(argv[0], 0, "no command given");
				print_noun_help(stderr, argv[0]);
				return HC_EXIT_USAGE;
			}
			if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
			    !strcmp(argv[1], "help")) {
				print_noun_help(stdout, argv[0]);
				return HC_EXIT_OK;
			}
			hc_errf(argv[0], 0, "unknown command '%s'", argv[1]);
			print_noun_help(stderr, argv[0]);
			return HC_EXIT_USAGE;
		}
		hc_errf(NULL, 0, "unknown command '%s'", argv[0]);
		print_try(NULL);
		return HC_EXIT_USAGE;
	}

	/* Handlers see argv[0] = last command word, then their arguments. */
	optind = 0;
	ret = cmd->handler(cmd, argc - nwords + 1, argv + nwords - 1);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		hc_err(NULL, "write error on stdout", errno);
		return HC_EXIT_FAIL;
	}
	return ret;
}
