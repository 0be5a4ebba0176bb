package io.github.distributedlock.benchmarks;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.redis.NotificationMode;
import io.github.distributedlock.redis.RedisLockClient;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * {@code run.sh cluster-notifications [masters...]}: classic against sharded notifications on a Redis Cluster of
 * its own (N primaries, one replica each, {@code redis-server} processes on free ports), for this library only.
 * Per mode: the cluster-bus messages per notification ({@code CLUSTER INFO} {@code cluster_stats_messages_publish_sent}
 * plus {@code ..._publishshard_sent}, summed over every node), the time from a reader's release to a writer of
 * another instance holding the lock (median and 99th percentile), and the contended throughput of one key (two
 * instances x 4 threads, a reentrant lock, {@code bench.cluster.seconds} each), after a warm-up, each mode twice
 * (classic, sharded, sharded, classic). Appends a table to the report.
 * System properties: {@code bench.cluster.wakeups} (default 200), {@code bench.cluster.seconds} (default 10).
 */
public final class ClusterNotificationRunner {

	private static final int WAKEUPS = Integer.getInteger("bench.cluster.wakeups", 200);

	private static final int SECONDS = Integer.getInteger("bench.cluster.seconds", 10);

	private final List<Process> servers = new ArrayList<>();

	private final List<String> nodes = new ArrayList<>();

	private ClusterNotificationRunner() {
	}

	/**
	 * Runs each cluster size and appends its rows to the report.
	 * @param args the report's path, then the primaries of each cluster (default 3 and 6)
	 * @throws Exception if a server or a run fails
	 */
	public static void main(String[] args) throws Exception {
		Path report = Path.of((args.length > 0) ? args[0] : "target/cluster-notifications.md");
		List<Integer> sizes = new ArrayList<>();
		for (int i = 1; i < args.length; i++) {
			sizes.add(Integer.parseInt(args[i]));
		}
		if (sizes.isEmpty()) {
			sizes = List.of(3, 6);
		}
		StringBuilder table = new StringBuilder("| primaries (+1 replica each) | mode | bus messages per notification | "
				+ "release to waiter, median / p99 (ms) | contended ops/s (2 instances x 4 threads) |\n|---|---|---|---|---|\n");
		for (int masters : sizes) {
			for (ModeRun run : measure(masters, WAKEUPS, SECONDS)) {
				table.append(run.row());
			}
		}
		Files.createDirectories(report.toAbsolutePath().getParent());
		Files.writeString(report, table, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
				StandardOpenOption.APPEND);
		System.out.print(table);
	}

	/**
	 * What one mode measured on one cluster.
	 * @param masters the cluster's primaries (each with one replica)
	 * @param mode classic or sharded notifications
	 * @param busPerNotification cluster-bus messages per notification, summed over every node
	 * @param medianMillis the median time from a reader's release to the waiting writer's hold, ms
	 * @param p99Millis its 99th percentile, ms
	 * @param opsPerSecond the contended throughput of one key (2 instances x 4 threads)
	 */
	record ModeRun(int masters, NotificationMode mode, double busPerNotification, double medianMillis,
			double p99Millis, double opsPerSecond) {

		String row() {
			return String.format(Locale.ROOT, "| %d | %s | %.1f | %.1f / %.1f | %.0f |%n", this.masters,
					this.mode.name().toLowerCase(Locale.ROOT), this.busPerNotification, this.medianMillis,
					this.p99Millis, this.opsPerSecond);
		}

	}

	/**
	 * Starts a cluster, warms up, and measures each mode twice, in the order classic, sharded, sharded, classic.
	 * @param masters the primaries (each gets one replica)
	 * @param wakeups the notifications timed per measurement
	 * @param seconds the contended measurement's length
	 * @return the four measurements, in the order they ran
	 * @throws Exception if a server or a run fails
	 */
	static List<ModeRun> measure(int masters, int wakeups, int seconds) throws Exception {
		ClusterNotificationRunner cluster = new ClusterNotificationRunner();
		try {
			cluster.start(masters);
			// a warm-up (JIT, connections), not reported
			cluster.measure(masters, NotificationMode.SHARDED, Math.max(1, wakeups / 10), Math.min(2, seconds));
			List<ModeRun> runs = new ArrayList<>();
			for (NotificationMode mode : List.of(NotificationMode.CLASSIC, NotificationMode.SHARDED,
					NotificationMode.SHARDED, NotificationMode.CLASSIC)) {
				runs.add(cluster.measure(masters, mode, wakeups, seconds));
			}
			return runs;
		}
		finally {
			cluster.stop();
		}
	}

	private ModeRun measure(int masters, NotificationMode mode, int count, int seconds) throws Exception {
		LettuceConnectionFactory factory = factory();
		try (RedisLockClient first = new RedisLockClient(factory, "lock:", 0, RedisLockClient.DEFAULT_SYNC_TIMEOUT, mode);
				RedisLockClient second = new RedisLockClient(factory, "lock:", 0, RedisLockClient.DEFAULT_SYNC_TIMEOUT,
						mode)) {
			DistributedLockTemplate a = new DistributedLockTemplate(first, Duration.ofSeconds(30), Duration.ofSeconds(20));
			DistributedLockTemplate b = new DistributedLockTemplate(second, Duration.ofSeconds(30), Duration.ofSeconds(20));
			StringRedisTemplate redis = new StringRedisTemplate(factory);
			long busBefore = busMessages();
			long[] wakeups = new long[count];
			for (int i = 0; i < count; i++) {
				wakeups[i] = readerReleaseToWriter(a, b, "bench:" + i + ":" + System.nanoTime(), redis);
			}
			double perNotification = (busMessages() - busBefore) / (double) count;
			java.util.Arrays.sort(wakeups);
			double opsPerSecond = contended(a, b, "bench:contended:" + mode + ":" + System.nanoTime(), seconds);
			return new ModeRun(masters, mode, perNotification, wakeups[count / 2] / 1e6,
					wakeups[(int) (count * 0.99)] / 1e6, opsPerSecond);
		}
		finally {
			factory.destroy();
		}
	}

	/** A reader on one instance, a writer waiting on the other: nanoseconds from the release to the writer's hold. */
	private static long readerReleaseToWriter(DistributedLockTemplate holder, DistributedLockTemplate waiter,
			String key, StringRedisTemplate redis) throws Exception {
		ReadWriteLock reader = holder.getReadWriteLock(key);
		reader.readLock().lock();
		ExecutorService pool = Executors.newSingleThreadExecutor();
		try {
			Future<Long> writer = pool.submit(() -> {
				Lock lock = waiter.getReadWriteLock(key).writeLock();
				lock.lock();
				long at = System.nanoTime();
				lock.unlock();
				return at;
			});
			// the writer's first try failed (its claim is there), and a sharded subscription had time to be made
			while (redis.opsForHash().keys("lock:" + key).stream().noneMatch((f) -> f.toString().startsWith("ww:"))) {
				Thread.sleep(1);
			}
			Thread.sleep(100);
			long releasedAt = System.nanoTime();
			reader.readLock().unlock();
			return writer.get(30, TimeUnit.SECONDS) - releasedAt;
		}
		finally {
			pool.shutdownNow();
		}
	}

	private static double contended(DistributedLockTemplate a, DistributedLockTemplate b, String key, int seconds)
			throws Exception {
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong ops = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(8);
		List<Future<?>> threads = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			DistributedLockTemplate template = (i % 2 == 0) ? a : b;
			threads.add(pool.submit(() -> {
				while (running.get()) {
					template.execute(key, () -> ops.incrementAndGet());
				}
				return null;
			}));
		}
		long start = System.nanoTime();
		Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
		running.set(false);
		for (Future<?> thread : threads) {
			thread.get(60, TimeUnit.SECONDS);
		}
		pool.shutdown();
		return ops.get() / ((System.nanoTime() - start) / 1e9);
	}

	private LettuceConnectionFactory factory() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisClusterConfiguration(this.nodes),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private long busMessages() throws Exception {
		long sum = 0;
		for (String node : this.nodes) {
			String port = node.substring(node.indexOf(':') + 1);
			for (String line : cli("-p", port, "cluster", "info").split("\r?\n")) {
				if (line.startsWith("cluster_stats_messages_publish_sent:")
						|| line.startsWith("cluster_stats_messages_publishshard_sent:")) {
					sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
				}
			}
		}
		return sum;
	}

	private void start(int masters) throws Exception {
		Path dir = Files.createTempDirectory("bench-cluster");
		for (int i = 0; i < 2 * masters; i++) {
			int port;
			try (ServerSocket socket = new ServerSocket(0)) {
				port = socket.getLocalPort();
			}
			this.servers.add(new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
					"--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf", "--dir",
					dir.toString(), "--save", "", "--appendonly", "no", "--logfile", "redis-" + port + ".log")
				.start());
			this.nodes.add("127.0.0.1:" + port);
			while (!cli("-p", Integer.toString(port), "ping").contains("PONG")) {
				Thread.sleep(50);
			}
		}
		List<String> create = new ArrayList<>(List.of("--cluster", "create"));
		create.addAll(this.nodes);
		create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
		cli(create.toArray(String[]::new));
		for (String node : this.nodes) {
			String port = node.substring(node.indexOf(':') + 1);
			while (!cli("-p", port, "cluster", "info").contains("cluster_state:ok")) {
				Thread.sleep(100);
			}
		}
	}

	private void stop() {
		this.servers.forEach(Process::destroy);
	}

	private static String cli(String... args) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("redis-cli"));
		command.addAll(List.of(args));
		Process cli = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		cli.waitFor(60, TimeUnit.SECONDS);
		return output;
	}

}
