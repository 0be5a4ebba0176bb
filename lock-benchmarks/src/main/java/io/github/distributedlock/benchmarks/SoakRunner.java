package io.github.distributedlock.benchmarks;

import java.io.File;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The soak run (not part of CI): two application instances ({@link SoakWorker} JVMs) x 16 threads lock 100
 * keys for 10 minutes, each lock guarding a read-then-write increment of the key's counter through a fenced
 * write, while one of the two JVMs is killed with SIGKILL and started again every minute. At the end it
 * prints the overlapping holds, lost increments and token regressions (all must be 0) and the acquisitions
 * per second. System properties: {@code soak.redis.port} (required), {@code soak.minutes} (10),
 * {@code soak.threads} (16), {@code soak.keys} (100), {@code soak.kill.seconds} (60), {@code soak.lease.ms}
 * (2000).
 */
public final class SoakRunner {

	private SoakRunner() {
	}

	public static void main(String[] args) throws Exception {
		int port = Integer.getInteger("soak.redis.port");
		long minutes = Long.getLong("soak.minutes", 10);
		int threads = Integer.getInteger("soak.threads", 16);
		int keys = Integer.getInteger("soak.keys", 100);
		long killSeconds = Long.getLong("soak.kill.seconds", 60);
		long leaseMillis = Long.getLong("soak.lease.ms", 2000);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		StringRedisTemplate redis = new StringRedisTemplate(factory);
		redis.getRequiredConnectionFactory().getConnection().serverCommands().flushDb();
		long start = System.currentTimeMillis();
		long end = start + TimeUnit.MINUTES.toMillis(minutes);
		Process stable = worker(port, "stable", threads, keys, end, leaseMillis);
		int generation = 0;
		Process killed = worker(port, "killed-" + generation, threads, keys, end, leaseMillis);
		int kills = 0;
		while (System.currentTimeMillis() + TimeUnit.SECONDS.toMillis(killSeconds) < end) {
			Thread.sleep(TimeUnit.SECONDS.toMillis(killSeconds));
			killed.destroyForcibly().waitFor();
			kills++;
			System.out.println("kill -9 of worker " + generation + " after " + (System.currentTimeMillis() - start) / 1000 + " s");
			generation++;
			killed = worker(port, "killed-" + generation, threads, keys, end, leaseMillis);
		}
		stable.waitFor();
		killed.waitFor();
		long seconds = Math.max(1, (System.currentTimeMillis() - start) / 1000);
		Map<Object, Object> stats = redis.opsForHash().entries(SoakWorker.STATS);
		long acked = parse(redis.opsForValue().get("soak:acked"));
		long counted = 0;
		for (int k = 0; k < keys; k++) {
			counted += parse(redis.opsForHash().get("soak:counter:k" + k, "value"));
		}
		long acquisitions = parse(stats.get("acquisitions"));
		System.out.printf("Soak run: 2 JVMs x %d threads, %d keys, %d s, %d kill -9 + restart of one JVM%n", threads,
				keys, seconds, kills);
		System.out.printf("  acquisitions: %d (%d/s; a killed JVM's last second is not counted)%n", acquisitions,
				acquisitions / seconds);
		System.out.printf("  overlapping holds: %d%n", parse(stats.get("overlaps")));
		System.out.printf("  lost increments: %d (counters sum %d, acknowledged increments %d; the %d more are "
				+ "increments written by a JVM killed before it acknowledged them)%n", Math.max(0, acked - counted),
				counted, acked, Math.max(0, counted - acked));
		System.out.printf("  token regressions (fenced writes refused): %d%n", parse(stats.get("refused")));
		System.out.printf("  errors (not acquired in 30 s, or Redis errors): %d%n", parse(stats.get("errors")));
		factory.destroy();
	}

	private static long parse(Object value) {
		return (value != null) ? Long.parseLong(value.toString()) : 0;
	}

	private static Process worker(int port, String generation, int threads, int keys, long end, long leaseMillis)
			throws IOException {
		String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
		return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), SoakWorker.class.getName(),
				Integer.toString(port), generation, Integer.toString(threads), Integer.toString(keys),
				Long.toString(end), Long.toString(leaseMillis))
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
	}

}
