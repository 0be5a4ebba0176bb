package io.github.distributedlock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redlock.RedlockLockClient;
import io.github.distributedlock.test.Concurrently;
import io.github.distributedlock.test.ExclusionChecker;

/**
 * The Redlock chaos run (not part of CI; {@code run.sh redlock-chaos [SECONDS]}): this library's
 * {@code store=redlock} (built as its auto-configuration builds it, {@link RedlockPeer#oursClient}) over
 * {@value #NODES} {@code redis-server} processes of its own, {@value #CLIENTS} clients x
 * {@value #THREADS_PER_CLIENT} threads contending on {@value #KEYS} keys (each thread on one key, each key with
 * threads of both clients; {@link ChaosPeer#LEASE} lease, {@link ChaosPeer#WAIT} wait), and a second JVM ({@link RedlockChaosHolder})
 * contending on the first key, while {@link RedlockFaults} faults one node at a time: {@code kill -9} and a
 * restart after the delayed-restart time, {@code kill -STOP}/{@code -CONT}, {@code CLIENT KILL} churn. Each key
 * has the chaos test's checker ({@link ExclusionChecker}: never two bodies inside, no lost update of its counter,
 * fencing tokens strictly increasing in body order); the run prints each key's summary and whether the
 * invariants held, and appends a table ({@link ChaosResult}) to the report. System properties:
 * {@code chaos.seconds} (600), {@code chaos.report} ({@code lock-benchmarks/target/redlock-chaos.md}),
 * {@code chaos.redlock.faults} (the kinds in turn, {@code kill,stop,churn}; also {@code kill-majority}, see
 * {@link RedlockFaults}), {@code chaos.redlock.restart-delay} (milliseconds a killed node stays down,
 * {@link #DELAYED_RESTART} by default; {@code 0}, a restart at once, with {@code kill-majority} is the negative
 * control: there the checker sees what Redlock cannot prevent, two holders).
 */
public final class RedlockChaosRunner {

	static final int NODES = 3;

	static final int CLIENTS = 2;

	static final int THREADS_PER_CLIENT = 4;

	static final int KEYS = 3;

	/** How long a killed node stays down by default: longer than the longest lease (redis.io's delayed restart). */
	static final Duration DELAYED_RESTART = ChaosPeer.LEASE.plusSeconds(1);

	private RedlockChaosRunner() {
	}

	/**
	 * Runs the chaos run, prints what each key's checker saw, and appends the table to the report.
	 * @param args none
	 * @throws Exception if the run could not be set up (no {@code redis-server} on PATH, for one)
	 */
	public static void main(String[] args) throws Exception {
		ChaosRunner.logOnly(Level.OFF);
		Duration runFor = Duration.ofSeconds(Long.getLong("chaos.seconds", 600));
		Path report = Path.of(System.getProperty("chaos.report", "lock-benchmarks/target/redlock-chaos.md"));
		String load = Files.readString(Path.of("/proc/loadavg")).trim();
		List<String> kinds = List.of(System.getProperty("chaos.redlock.faults", "kill,stop,churn").split(","));
		Duration restartDelay = Duration.ofMillis(Long.getLong("chaos.redlock.restart-delay", DELAYED_RESTART.toMillis()));
		String prefix = "chaos:redlock:" + UUID.randomUUID() + ":";
		List<ExclusionChecker> checkers = new ArrayList<>();
		for (int i = 0; i < KEYS; i++) {
			checkers.add(new ExclusionChecker());
		}
		List<RedlockLockClient> clients = new ArrayList<>();
		RedlockFaults faults;
		int holderHolds;
		try (RedlockNodes nodes = new RedlockNodes(NODES)) {
			try {
				List<DistributedLockTemplate> templates = new ArrayList<>();
				for (int i = 0; i < CLIENTS; i++) {
					RedlockLockClient client = RedlockPeer.oursClient(nodes.urls());
					clients.add(client);
					templates.add(new DistributedLockTemplate(client, ChaosPeer.LEASE, ChaosPeer.WAIT));
				}
				List<String> holderArgs = new ArrayList<>(List.of(RedlockChaosHolder.class.getName(), prefix + 0));
				holderArgs.addAll(nodes.urls());
				try (HolderJvm holder = new HolderJvm(holderArgs, checkers.get(0))) {
					long deadline = System.nanoTime() + runFor.toNanos();
					faults = new RedlockFaults(nodes, kinds, restartDelay, deadline, checkers, holder::holding);
					workload(templates, prefix, checkers, deadline);
					faults.join();
					holderHolds = holder.holds();
				}
			}
			finally {
				clients.forEach(RedlockLockClient::close);
			}
		}
		List<ChaosResult> results = new ArrayList<>();
		boolean held = true;
		for (int i = 0; i < KEYS; i++) {
			int key = i;
			ExclusionChecker checker = checkers.get(i);
			// the threads t with t % KEYS == key
			int threads = (CLIENTS * THREADS_PER_CLIENT - key + KEYS - 1) / KEYS;
			String who = threads + " threads of " + CLIENTS + " clients" + ((i == 0)
					? " + a holder JVM (" + holderHolds + " holds)" : "");
			String fault = "Redlock, " + NODES + " nodes, one node faulted at a time"
					+ (restartDelay.compareTo(ChaosPeer.LEASE) > 0 || !kinds.stream().anyMatch((k) -> k.startsWith("kill"))
							? "" : " (NEGATIVE CONTROL: a killed node restarted within the lease)");
			ChaosResult result = new ChaosResult(fault,
					"ours-redlock key " + i + " (" + who + ")", checker, faults.injected(), faults.recoveries());
			results.add(result);
			List<String> problems = checker.problems(0);
			held &= problems.isEmpty();
			System.out.println("key " + i + ": " + checker.summary());
			System.out.println("key " + i + " invariants (one holder, no lost update, tokens increasing): "
					+ (problems.isEmpty() ? "held" : "BROKEN " + problems));
		}
		System.out.println("injected: " + faults.injected() + "; recoveries ms " + faults.recoveries());
		System.out.println("invariants " + (held ? "held on every key" : "BROKEN on a key (see above)"));
		String table = ChaosResult.table(results, Instant.now() + ", " + runFor.toSeconds() + " s, "
				+ Markdown.machine() + ", load average before: " + load + ", after: "
				+ Files.readString(Path.of("/proc/loadavg")).trim());
		System.out.println(table);
		Files.createDirectories(report.toAbsolutePath().getParent());
		Files.writeString(report, table + System.lineSeparator(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
	}

	/**
	 * Runs the calling threads until the deadline: thread {@code t} calls on key {@code t % KEYS} through client
	 * {@code t % CLIENTS}, so that every key has callers of both clients all the time and a key without bodies
	 * for a while is a stall of the lock, not of its callers.
	 */
	private static void workload(List<DistributedLockTemplate> templates, String prefix,
			List<ExclusionChecker> checkers, long deadline) throws Exception {
		long seconds = Math.max(0, (deadline - System.nanoTime()) / 1_000_000_000L);
		Concurrently.run(CLIENTS * THREADS_PER_CLIENT, seconds + 120, (thread) -> {
			DistributedLockTemplate template = templates.get(thread % CLIENTS);
			ExclusionChecker checker = checkers.get(thread % KEYS);
			LockDefinition definition = LockDefinition.builder(prefix + (thread % KEYS))
				.lease(ChaosPeer.LEASE)
				.acquireTimeout(ChaosPeer.WAIT)
				.build();
			while (System.nanoTime() - deadline < 0) {
				checker.call(() -> template.execute(definition, () -> {
					checker.body(LockContext.current().fencingToken());
					return null;
				}));
			}
		});
	}

}
