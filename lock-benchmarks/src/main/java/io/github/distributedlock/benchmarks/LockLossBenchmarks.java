package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.aop.DistributedLockAdvisor;
import io.github.distributedlock.aop.DistributedLockInterceptor;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.transaction.LockCommitGuard;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionInterceptor;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

/**
 * What reacting to lost locks costs a healthy lock, without the Redis round trip: W6 with a transaction (the
 * annotated proxy on a {@link StubLockClient}, {@code @Transactional} inside the lock, on a transaction manager
 * that does nothing), without and with the {@link LockCommitGuard}; and the handle calls the guard and
 * {@code onLost = INTERRUPT} make, on a lock held in Redis: {@code checkHeld(margin)} and {@code whenLost()}.
 */
@Threads(1)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class LockLossBenchmarks {

	public static class Service {

		@DistributedLock(name = "bench", key = "#id")
		@Transactional
		public int locked(String id) {
			return id.length();
		}

	}

	/** A transaction manager with no resource: what is left is the transaction machinery and its listeners. */
	static final class NoResourceTransactionManager extends AbstractPlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

	/** The annotated, transactional proxy on a stub store, without and with the commit guard. */
	@State(Scope.Benchmark)
	public static class Stubbed {

		Service plain;

		Service guarded;

		@Setup(Level.Trial)
		public void setUp() {
			this.plain = proxy(new NoResourceTransactionManager());
			NoResourceTransactionManager guardedTransactions = new NoResourceTransactionManager();
			guardedTransactions.addListener(new LockCommitGuard(Duration.ofSeconds(1)));
			this.guarded = proxy(guardedTransactions);
		}

		private static Service proxy(AbstractPlatformTransactionManager transactions) {
			DistributedLockTemplate template = new DistributedLockTemplate(new StubLockClient(LockObserver.NONE),
					Duration.ofSeconds(30), Duration.ofSeconds(30));
			ProxyFactory proxyFactory = new ProxyFactory(new Service());
			proxyFactory.setProxyTargetClass(true);
			// the lock outside the transaction, as the advisor orders put them
			proxyFactory.addAdvisor(new DistributedLockAdvisor(new DistributedLockInterceptor(template), 0));
			proxyFactory.addAdvice(new TransactionInterceptor(transactions, new AnnotationTransactionAttributeSource()));
			return (Service) proxyFactory.getProxy();
		}

	}

	/** One lock held in Redis for the trial, by the benchmark thread. */
	@State(Scope.Thread)
	public static class Held {

		LettuceConnectionFactory factory;

		RedisLockClient client;

		LockHandle handle;

		final Duration margin = Duration.ofSeconds(1);

		@Setup(Level.Trial)
		public void setUp() {
			this.factory = LockPeer.connectionFactory(RedisAdmin.host(), RedisAdmin.port());
			this.client = new RedisLockClient(this.factory, "lock:");
			this.handle = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ofSeconds(30))
				.acquire(LockDefinition.of("bench:loss"));
		}

		@TearDown(Level.Trial)
		public void tearDown() {
			this.handle.close();
			this.client.close();
			this.factory.destroy();
		}

	}

	@Benchmark
	public int w6StubTransaction(Stubbed stubbed) {
		return stubbed.plain.locked("w6");
	}

	@Benchmark
	public int w6StubTransactionGuarded(Stubbed stubbed) {
		return stubbed.guarded.locked("w6");
	}

	@Benchmark
	public LockHandle checkHeldWithMargin(Held held) {
		held.handle.checkHeld(held.margin);
		return held.handle;
	}

	@Benchmark
	public CompletionStage<LockLostException> whenLost(Held held) {
		return held.handle.whenLost();
	}

}
