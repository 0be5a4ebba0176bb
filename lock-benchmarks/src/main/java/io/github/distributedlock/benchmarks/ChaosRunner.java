package io.github.distributedlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.ConnectionChurn;
import io.github.distributedlock.test.ExclusionChecker;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SentinelTopology;
import io.github.distributedlock.test.TcpProxy;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

/**
 * The chaos run (not part of CI; {@code run.sh chaos}): the checker of the chaos test
 * ({@link ExclusionChecker}: never two bodies inside, no lost update, tokens increasing in body order, failed
 * calls) on 2 clients x 4 threads of one library, all on one key (2 s lease, 3 s wait, 1 s command timeout),
 * each on {@code redis-server} processes of its own on the loopback interface, under one fault at a time:
 * <ul>
 * <li>{@code churn}, for every peer: {@link ConnectionChurn} (client connections killed 30–400 ms apart, now
 * and then the server frozen for 300–900 ms);</li>
 * <li>{@code holder-kill}, this library: the churn, plus a third instance in a JVM of its own
 * ({@link HolderJvm}) killed with SIGKILL while it holds the lock every 5–15 s, and started again;</li>
 * <li>{@code failover}, this library through Sentinel (1 primary, 2 replicas, 3 sentinels): every 15–25 s the
 * primary's writes are paused until the replicas have all of them (what {@code WAIT} checks), then the primary
 * is killed with SIGKILL and a replica promoted;</li>
 * <li>{@code partition}, this library, each client through a TCP proxy of its own: every 8–15 s one client is
 * cut off for 3–5 s (longer than the lease), then what it sent meanwhile is delivered late;</li>
 * <li>{@code semaphore} and {@code semaphore-failover}: the churn and the failover on this library's semaphore of
 * {@link ChaosPeer#SEMAPHORE_PERMITS} permits (peer {@code ours-semaphore}), whose checker counts more than that
 * many bodies inside as an overlap and a token handed out twice as a regression.</li>
 * </ul>
 * Recovery is the time from a fault to the next body that entered. System properties: {@code chaos.seconds}
 * per run (600), {@code chaos.peers} ({@code ours,redisson,si-spin,si-pubsub}), {@code chaos.faults}
 * ({@code churn,holder-kill,failover,partition}), {@code chaos.report} (a Markdown table, appended).
 */
public final class ChaosRunner {

	private static final int CLIENTS = 2;

	private static final int THREADS_PER_CLIENT = 4;

	private ChaosRunner() {
	}

	/**
	 * Runs the chaos runs the system properties name, one after another, prints each run's summary and the
	 * table, and appends the table to the report.
	 * @param args none
	 * @throws Exception if a run could not be set up (no {@code redis-server} on PATH, for one)
	 */
	public static void main(String[] args) throws Exception {
		logOnly(Level.OFF);
		Duration runFor = Duration.ofSeconds(Long.getLong("chaos.seconds", 600));
		List<String> peers = list(System.getProperty("chaos.peers", "ours,redisson,si-spin,si-pubsub"));
		List<String> faults = list(System.getProperty("chaos.faults", "churn,holder-kill,failover,partition"));
		Path report = Path.of(System.getProperty("chaos.report", "lock-benchmarks/target/chaos.md"));
		List<ChaosResult> results = new ArrayList<>();
		String load = Files.readString(Path.of("/proc/loadavg")).trim();
		for (String fault : faults) {
			switch (fault) {
				case "churn" -> {
					for (String peer : peers) {
						results.add(print(churn(peer, runFor, false)));
					}
				}
				case "holder-kill" -> results.add(print(churn("ours", runFor, true)));
				case "failover" -> results.add(print(failover("ours", runFor)));
				case "semaphore" -> results.add(print(churn("ours-semaphore", runFor, false)));
				case "semaphore-failover" -> results.add(print(failover("ours-semaphore", runFor)));
				case "partition" -> results.add(print(partition(runFor)));
				default -> throw new IllegalArgumentException("Unknown chaos fault '" + fault
						+ "' in chaos.faults: expected churn, holder-kill, failover, partition, semaphore or "
						+ "semaphore-failover");
			}
		}
		String table = ChaosResult.table(results, Instant.now() + ", " + runFor.toSeconds() + " s per run, "
				+ Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version")
				+ ", load average before: " + load + ", after: " + Files.readString(Path.of("/proc/loadavg")).trim());
		System.out.println(table);
		Files.createDirectories(report.toAbsolutePath().getParent());
		Files.writeString(report, table + System.lineSeparator(), java.nio.file.StandardOpenOption.CREATE,
				java.nio.file.StandardOpenOption.APPEND);
	}

	private static ChaosResult churn(String peerName, Duration runFor, boolean killHolders) throws Exception {
		String key = "chaos:" + UUID.randomUUID();
		ExclusionChecker checker = new ExclusionChecker(ChaosPeer.permits(peerName));
		List<Long> recoveries = Collections.synchronizedList(new ArrayList<>());
		AtomicInteger killsWhileHolding = new AtomicInteger();
		try (RedisServer server = RedisServer.start();
				ChaosPeer peer = ChaosPeer.create(peerName, Collections.nCopies(CLIENTS,
						new RedisStandaloneConfiguration(server.host(), server.port())));
				HolderJvm holder = killHolders ? new HolderJvm(server.port(), key, checker) : null;
				ConnectionChurn churn = ConnectionChurn.start(server)) {
			long deadline = System.nanoTime() + runFor.toNanos();
			Thread faults = (holder == null) ? null
					: faults(deadline, 5, 15, checker, recoveries, () -> awaitHolding(holder), () -> {
						if (holder.kill()) {
							killsWhileHolding.incrementAndGet();
						}
						holder.restart();
					});
			workload(peer, key, checker, deadline);
			join(faults);
			String injected = churn + ((holder == null) ? "" : ", holder JVM holds=" + holder.holds()
					+ ", kill -9=" + recoveries.size() + " (" + killsWhileHolding + " while it held the lock)");
			return new ChaosResult(killHolders ? "churn + kill -9 of a holder JVM" : "connection churn", peerName,
					checker, injected, recoveries);
		}
	}

	private static ChaosResult failover(String peerName, Duration runFor) throws Exception {
		String key = "chaos:" + UUID.randomUUID();
		ExclusionChecker checker = new ExclusionChecker(ChaosPeer.permits(peerName));
		List<Long> recoveries = Collections.synchronizedList(new ArrayList<>());
		try (SentinelTopology topology = SentinelTopology.start();
				ChaosPeer peer = ChaosPeer.create(peerName, Collections.nCopies(CLIENTS, new RedisSentinelConfiguration(
						SentinelTopology.MASTER, Set.of(topology.sentinelNodes().split(",")))))) {
			long deadline = System.nanoTime() + runFor.toNanos();
			Thread faults = faults(deadline, 15, 25, checker, recoveries, () -> {
				topology.awaitHealthy();
				RedisServer primary = topology.primary();
				primary.cli("CLIENT", "PAUSE", "10000", "WRITE");
				awaitReplicasHaveEverything(primary);
			}, () -> topology.killPrimaryAndAwaitFailover(Duration.ofSeconds(30)));
			workload(peer, key, checker, deadline);
			join(faults);
			return new ChaosResult("Sentinel failover (kill -9 of the primary)", peerName, checker,
					"failovers=" + recoveries.size(), recoveries);
		}
	}

	private static ChaosResult partition(Duration runFor) throws Exception {
		String key = "chaos:" + UUID.randomUUID();
		ExclusionChecker checker = new ExclusionChecker();
		List<Long> recoveries = Collections.synchronizedList(new ArrayList<>());
		try (RedisServer server = RedisServer.start();
				TcpProxy first = new TcpProxy(server.host(), server.port());
				TcpProxy second = new TcpProxy(server.host(), server.port());
				ChaosPeer peer = ChaosPeer.create("ours", List.of(
						new RedisStandaloneConfiguration("127.0.0.1", first.port()),
						new RedisStandaloneConfiguration("127.0.0.1", second.port())))) {
			long deadline = System.nanoTime() + runFor.toNanos();
			Thread faults = faults(deadline, 8, 15, checker, recoveries, () -> {
			}, () -> {
				TcpProxy cut = ThreadLocalRandom.current().nextBoolean() ? first : second;
				cut.partition();
				// the split's length: the workload of this fault, not synchronisation
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(3000, 5001) * 1_000_000);
				cut.heal();
			});
			workload(peer, key, checker, deadline);
			join(faults);
			return new ChaosResult("partition of one client, 3-5 s", "ours", checker,
					"partitions=" + recoveries.size(), recoveries);
		}
	}

	/** Runs the 2 x 4 calling threads until the deadline. */
	private static void workload(ChaosPeer peer, String key, ExclusionChecker checker, long deadline)
			throws Exception {
		long seconds = Math.max(0, (deadline - System.nanoTime()) / 1_000_000_000L);
		Concurrently.run(CLIENTS * THREADS_PER_CLIENT, seconds + 120, (thread) -> {
			int client = thread % CLIENTS;
			while (System.nanoTime() - deadline < 0) {
				checker.call(() -> peer.call(client, key, checker::body));
			}
		});
	}

	/**
	 * Starts a thread that injects a fault every {@code minSeconds}–{@code maxSeconds} until the deadline: it
	 * runs {@code prepare}, then {@code inject} (which may wait, for a promotion or a partition's end), and
	 * records the milliseconds from the start of {@code inject} to the first body that entered after it.
	 */
	private static Thread faults(long deadline, int minSeconds, int maxSeconds, ExclusionChecker checker,
			List<Long> recoveries, Runnable prepare, Runnable inject) {
		Thread thread = new Thread(() -> {
			while (true) {
				long next = System.nanoTime() + ThreadLocalRandom.current().nextLong(minSeconds, maxSeconds + 1) * 1_000_000_000L;
				// the interval between faults: pacing, not synchronisation
				LockSupport.parkNanos(next - System.nanoTime());
				if (next - deadline > -5_000_000_000L) {
					return;
				}
				prepare.run();
				long fault = System.nanoTime();
				Thread watch = new Thread(() -> recoveries.add(awaitEntryAfter(checker, fault)), "chaos-recovery");
				watch.setDaemon(true);
				watch.start();
				inject.run();
				try {
					watch.join(60_000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}, "chaos-faults");
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	/** Polls every millisecond until a body entered after {@code fault}; returns the milliseconds to it. */
	private static long awaitEntryAfter(ExclusionChecker checker, long fault) {
		long giveUp = fault + 60_000_000_000L;
		while (checker.lastEnteredNanos() - fault <= 0 && System.nanoTime() - giveUp < 0) {
			LockSupport.parkNanos(1_000_000);
		}
		return (checker.lastEnteredNanos() - fault) / 1_000_000;
	}

	private static void awaitHolding(HolderJvm holder) {
		long giveUp = System.nanoTime() + 10_000_000_000L;
		while (!holder.holding() && System.nanoTime() - giveUp < 0) {
			LockSupport.parkNanos(1_000_000);
		}
	}

	/** Waits until every replica acknowledged the primary's replication offset (what {@code WAIT} checks). */
	private static void awaitReplicasHaveEverything(RedisServer primary) {
		long giveUp = System.nanoTime() + 10_000_000_000L;
		while (System.nanoTime() - giveUp < 0) {
			String info = primary.admin().info("replication");
			long offset = Long.parseLong(info.replaceAll("(?s).*master_repl_offset:(\\d+).*", "$1"));
			boolean all = Arrays.stream(info.split("\n"))
				.map(String::trim)
				.filter((line) -> line.startsWith("slave") && line.contains("offset="))
				.allMatch((line) -> Long.parseLong(line.replaceAll(".*offset=(\\d+).*", "$1")) >= offset);
			if (all) {
				return;
			}
			LockSupport.parkNanos(20_000_000);
		}
		throw new IllegalStateException("The replicas did not catch up with the paused primary in 10 s");
	}

	private static void join(Thread thread) throws InterruptedException {
		if (thread != null) {
			thread.join(120_000);
		}
	}

	private static ChaosResult print(ChaosResult result) {
		System.out.println(result.fault() + " / " + result.peer() + ": " + result.checker().summary() + "; "
				+ result.injected() + "; recoveries ms " + result.recoveries());
		return result;
	}

	/** Sets the level of every logger: the run's own output is its table. */
	static void logOnly(Level level) {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(level);
	}

	private static List<String> list(String commaSeparated) {
		return Arrays.stream(commaSeparated.split(",")).map(String::trim).filter((s) -> !s.isEmpty()).toList();
	}

}
