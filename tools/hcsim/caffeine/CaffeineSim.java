// SPDX-License-Identifier: GPL-2.0
/*
 * CaffeineSim - replay one of hcsim's traces through Caffeine (the Java
 * cache library, Debian's libcaffeine-java) and print its request and byte
 * hit ratio in hcsim's row format, so that scripts/bench-caffeine.sh can
 * put it beside hcsim's policies on the same trace and capacity.
 *
 *   java -cp caffeine.jar:DIR CaffeineSim kv|arc CAPACITY[,CAPACITY...] UNIT TRACE
 *
 * CAPACITY in chunks (units); the trace is replayed RUNS times (3) per
 * capacity, in one JVM, each into a new cache (Caffeine's admission has a
 * random jitter, so runs differ); one line per capacity, the means and the
 * byte hit ratio's range:
 *   Caffeine CAPACITY requests hits hit% bytes% min-bytes% max-bytes%
 *
 * kv: "key size_bytes [w]" per line; weight = ceil(size / UNIT) chunks; "w"
 * is a write (a STAGE in hcsim: put, not a request).  arc: "start count
 * ignored request_no", each block of the run one request of weight 1.
 * The cache: maximumWeight(CAPACITY) with that weigher, maintenance on the
 * calling thread (executor(Runnable::run)), so every replay is the same.
 * A miss puts the object (Caffeine's W-TinyLFU then decides who stays).
 */
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;

public final class CaffeineSim {
	private static long requests, hits, bytes, hitBytes;

	private static void replay(boolean kv, long cap, long unit, String path)
		throws IOException {
		Cache<String, Integer> c = Caffeine.newBuilder()
			.maximumWeight(cap)
			.weigher((String k, Integer w) -> w)
			.executor(Runnable::run)
			.build();

		requests = hits = bytes = hitBytes = 0;
		try (BufferedReader r = new BufferedReader(new FileReader(path))) {
			String line;

			while ((line = r.readLine()) != null) {
				String[] f = line.trim().split("\\s+");

				if (f.length < 2 || f[0].startsWith("#"))
					continue;
				if (kv) {
					long size = Long.parseLong(f[1]);
					long w = Math.max(1, (size + unit - 1) / unit);
					int wi = (int) Math.min(w, Integer.MAX_VALUE);

					if (f.length > 2 && f[2].equals("w"))
						c.put(f[0], wi);
					else
						request(c, f[0], wi, size);
				} else {
					long start = Long.parseLong(f[0]);
					long n = Long.parseLong(f[1]);

					for (long b = start; b < start + n; b++)
						request(c, Long.toString(b), 1, unit);
				}
			}
		}
	}

	private static final int RUNS = 3;

	private static void request(Cache<String, Integer> c, String key,
				    int weight, long size) {
		requests++;
		bytes += size;
		if (c.getIfPresent(key) != null) {
			hits++;
			hitBytes += size;
		} else {
			c.put(key, weight);
		}
	}

	public static void main(String[] args) throws IOException {
		if (args.length != 4) {
			System.err.println("usage: CaffeineSim kv|arc CAPACITY[,CAPACITY...] UNIT TRACE");
			System.exit(2);
		}
		for (String cap : args[1].split(",")) {
			double hsum = 0, bsum = 0, bmin = 101, bmax = -1;
			long hitsum = 0;

			for (int i = 0; i < RUNS; i++) {
				replay(args[0].equals("kv"), Long.parseLong(cap),
				       Long.parseLong(args[2]), args[3]);
				double h = requests > 0 ? 100.0 * hits / requests : 0;
				double b = bytes > 0 ? 100.0 * hitBytes / bytes : 0;

				hsum += h;
				bsum += b;
				hitsum += hits;
				bmin = Math.min(bmin, b);
				bmax = Math.max(bmax, b);
			}
			System.out.printf("%-8s %s %d %d %.2f %.2f %.2f %.2f%n",
					  "Caffeine", cap, requests, hitsum / RUNS,
					  hsum / RUNS, bsum / RUNS, bmin, bmax);
		}
	}
}
