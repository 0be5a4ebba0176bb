package io.github.distributedlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.distributedlock.core.ReactiveDistributedLockTemplate;
import io.github.distributedlock.redis.RedisLockClient;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.api.sync.RedisCommands;
import org.redisson.Redisson;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * W8, reactive waiting (issue 11): N (1,000) reactive acquisitions of ONE key subscribed at once, each holding
 * the lock for a short critical section and releasing it. The critical section reads a counter, sends one
 * {@code INCR} to Redis without blocking, and when it returns writes the counter back plus one: a second holder
 * inside that round trip is counted as a violation, and would lose an increment. (A section without a gap would
 * run on the one I/O thread that completed the acquisition, so an overlap could not be seen.) Measures
 * acquisitions per second (N over the time until the last one released), violations (must be 0), lost
 * increments (the counter must end at N), and the threads the run used: the JVM's peak live thread count during
 * the run minus the live count before it.
 * <p>
 * Peers, both in this JVM on one Redis: {@code ours}, {@link ReactiveDistributedLockTemplate#execute(String,
 * Mono)} on a {@link RedisLockClient} over a {@link LettuceConnectionFactory}, and {@code redisson},
 * {@code RLockReactive} ({@code redisson.reactive().getLock(key)}, {@code lock(id)} and {@code unlock(id)} with
 * an id of its own per acquisition, as Redisson requires of reactive callers). Each peer first runs one cold
 * round (reported on its own: it creates the clients' lazy threads and connections), then the measured rounds,
 * the peers in alternating order, Redis flushed before each.
 * <p>
 * Arguments: N (default 1000). System properties: {@code bench.redis.host}, {@code bench.redis.port},
 * {@code bench.reactive.rounds} (measured rounds per peer, 5), {@code bench.reactive.report} (a Markdown file for
 * the table).
 */
public final class ReactiveWaitBenchmark {

	private static final String KEY = "bench:reactive";

	private ReactiveWaitBenchmark() {
	}

	/**
	 * Runs the rounds and prints the table (also to {@code -Dbench.reactive.report}).
	 * @param args N, the concurrent acquisitions per round
	 * @throws Exception if Redis fails or a round does not end within 5 minutes
	 */
	public static void main(String[] args) throws Exception {
		int n = (args.length > 0) ? Integer.parseInt(args[0]) : 1000;
		int rounds = Integer.getInteger("bench.reactive.rounds", 5);
		String host = RedisAdmin.host();
		int port = RedisAdmin.port();
		LettuceConnectionFactory factory = LockPeer.connectionFactory(host, port);
		RedisLockClient client = new RedisLockClient(factory, "lock:");
		RedissonClient redisson = Redisson.create(LockPeer.RedissonPeer.config(host, port));
		try (RedisAdmin redis = RedisAdmin.connect()) {
			RedisCommands<String, String> admin = redis.sync();
			RedisReactiveCommands<String, String> counters = redis.reactive();
			Map<String, Peer> peers = new LinkedHashMap<>();
			peers.put("ours", ours(new ReactiveDistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofMinutes(2))));
			peers.put("redisson", redisson(redisson.reactive().getLock("redisson:" + KEY)));
			Map<String, Round> cold = new LinkedHashMap<>();
			Map<String, List<Round>> measured = new LinkedHashMap<>();
			for (Map.Entry<String, Peer> peer : peers.entrySet()) {
				admin.flushall();
				Round round = run(peer.getValue(), n, counters);
				System.out.println(peer.getKey() + " cold: " + round);
				cold.put(peer.getKey(), round);
				measured.put(peer.getKey(), new ArrayList<>());
			}
			for (int r = 0; r < rounds; r++) {
				List<String> order = new ArrayList<>(peers.keySet());
				if (r % 2 == 1) {
					Collections.reverse(order);
				}
				for (String name : order) {
					admin.flushall();
					Round round = run(peers.get(name), n, counters);
					System.out.println(name + " round " + (r + 1) + ": " + round);
					measured.get(name).add(round);
				}
			}
			String md = table(n, rounds, cold, measured);
			System.out.println(md);
			String report = System.getProperty("bench.reactive.report");
			if (report != null) {
				Files.writeString(Path.of(report), md, StandardCharsets.UTF_8);
			}
		}
		finally {
			client.close();
			factory.destroy();
			redisson.shutdown();
		}
	}

	private static String table(int n, int rounds, Map<String, Round> cold, Map<String, List<Round>> measured) {
		StringBuilder md = new StringBuilder();
		md.append("| peer | acquisitions/s (median of ").append(rounds).append(" rounds of ").append(String.format(Locale.ROOT, "%,d", n))
			.append(") | min - max | violations | lost increments | extra threads (most of any round) | extra threads, cold round |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|\n");
		measured.forEach((peer, list) -> {
			List<Double> rates = new ArrayList<>(list.stream().map(Round::perSecond).toList());
			Collections.sort(rates);
			double median = (rates.size() % 2 == 1) ? rates.get(rates.size() / 2)
					: (rates.get(rates.size() / 2 - 1) + rates.get(rates.size() / 2)) / 2;
			md.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f - %,.0f | %d | %d | %d | %d |%n", peer, median,
					rates.get(0), rates.get(rates.size() - 1),
					list.stream().mapToLong(Round::violations).sum() + cold.get(peer).violations(),
					list.stream().mapToLong(Round::lostIncrements).sum() + cold.get(peer).lostIncrements(),
					list.stream().mapToInt(Round::extraThreads).max().orElse(0), cold.get(peer).extraThreads()));
		});
		return md.toString();
	}

	/** Subscribes to N acquisitions at once and waits until every one has released the lock. */
	private static Round run(Peer peer, int n, RedisReactiveCommands<String, String> redis) {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		Critical critical = new Critical(redis);
		int before = threads.getThreadCount();
		threads.resetPeakThreadCount();
		long start = System.nanoTime();
		Flux.range(0, n).flatMap((i) -> peer.once(critical.section()), n).then().block(Duration.ofMinutes(5));
		double seconds = (System.nanoTime() - start) / 1e9;
		int peak = threads.getPeakThreadCount();
		return new Round(n / seconds, critical.violations.get(), n - critical.counter.get(), peak - before);
	}

	private static Peer ours(ReactiveDistributedLockTemplate template) {
		return (body) -> template.execute(KEY, body);
	}

	/** Redisson's reactive lock: each acquisition is an owner of its own, by an id it passes to lock and unlock. */
	private static Peer redisson(RLockReactive lock) {
		AtomicLong ids = new AtomicLong();
		return (body) -> Mono.defer(() -> {
			long id = ids.incrementAndGet();
			return lock.lock(id).then(body).then(Mono.defer(() -> lock.unlock(id)));
		});
	}

	/** One acquisition of the key by a peer, running {@code body} while it holds the lock. */
	@FunctionalInterface
	interface Peer {

		Mono<Void> once(Mono<Void> body);

	}

	/**
	 * The critical section: a read-modify-write of a counter around one Redis round trip, counting the
	 * acquisitions that found another inside.
	 */
	private static final class Critical {

		final RedisReactiveCommands<String, String> redis;

		final AtomicInteger inside = new AtomicInteger();

		final AtomicLong violations = new AtomicLong();

		final AtomicLong counter = new AtomicLong();

		Critical(RedisReactiveCommands<String, String> redis) {
			this.redis = redis;
		}

		Mono<Void> section() {
			return Mono.defer(() -> {
				if (this.inside.incrementAndGet() != 1) {
					this.violations.incrementAndGet();
				}
				long value = this.counter.get();
				return this.redis.incr(KEY + ":counter").doOnNext((ignored) -> {
					this.counter.set(value + 1);
					this.inside.decrementAndGet();
				}).then();
			});
		}

	}

	record Round(double perSecond, long violations, long lostIncrements, int extraThreads) {

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%,.0f acquisitions/s, %d violations, %d lost increments, %d extra threads",
					this.perSecond, this.violations, this.lostIncrements, this.extraThreads);
		}

	}

}
