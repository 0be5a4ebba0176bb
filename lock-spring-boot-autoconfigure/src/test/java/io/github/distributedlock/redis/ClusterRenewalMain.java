package io.github.distributedlock.redis;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.core.LockRequest;
import io.github.distributedlock.test.RedisClientLibrary;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * A separate JVM for {@link ClusterRenewalTests}, started with another default charset: holds reentrant locks
 * on a Redis Cluster with auto-renew for a while, then prints what happened. Arguments: the cluster's nodes
 * ({@code host:port,...}), the lease in ms, how long to hold in ms, then the lock keys, each as the hex of its
 * UTF-8 bytes (a command line under a POSIX locale would turn other characters into {@code ?}). Prints
 * {@code CHARSET <default charset>}, then {@code HELD <i>} or {@code LOST <i>} per key, then
 * {@code FAILURES <renewal failures>}.
 */
public final class ClusterRenewalMain {

	private ClusterRenewalMain() {
	}

	public static void main(String[] args) throws Exception {
		System.out.println("CHARSET " + Charset.defaultCharset().name());
		RedisConnectionFactory factory = RedisClientLibrary.LETTUCE.connectToCluster(List.of(args[0].split(",")));
		Duration lease = Duration.ofMillis(Long.parseLong(args[1]));
		long holdMillis = Long.parseLong(args[2]);
		AtomicInteger failures = new AtomicInteger();
		try (RedisLockClient client = new RedisLockClient(factory, "lock:")) {
			client.setLockObserver(new LockObserver() {
				@Override
				public void renewalFailed(String key, LockType type) {
					failures.incrementAndGet();
				}
			});
			List<LockHandle> handles = new ArrayList<>();
			for (int i = 3; i < args.length; i++) {
				String key = new String(HexFormat.of().parseHex(args[i]), StandardCharsets.UTF_8);
				// an acquire timeout, not a single try: the first connection to a cluster (its topology) can take
				// longer than one command timeout on a loaded machine, and tries are sent again within it
				handles.add(client.acquire(LockRequest.builder(key).lease(lease).timeout(Duration.ofSeconds(20))
						.interruptible(false).build()));
			}
			// holding is the point here, not a synchronisation: the watchdog renews meanwhile
			Thread.sleep(holdMillis);
			for (int i = 0; i < handles.size(); i++) {
				LockHandle handle = handles.get(i);
				System.out.println(((handle == null || handle.isLost()) ? "LOST " : "HELD ") + i);
			}
			System.out.println("FAILURES " + failures.get());
			for (LockHandle handle : handles) {
				if (handle != null && !handle.isLost()) {
					handle.close();
				}
			}
		}
		finally {
			RedisClientLibrary.destroy(factory);
		}
		System.out.flush();
		System.exit(0);
	}

}
