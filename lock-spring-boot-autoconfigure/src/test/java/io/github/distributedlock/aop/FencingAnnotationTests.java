package io.github.distributedlock.aop;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code @DistributedLock} methods reading their fencing token, and the annotation's {@code holdAtLeast}.
 */
class FencingAnnotationTests {

	private RecordingLockClient client;

	private RedisLockClient otherInstance;

	private Jobs jobs;

	@BeforeEach
	void setUp() {
		this.client = new RecordingLockClient(new RedisLockClient(SharedRedis.connectionFactory(), "lock:"));
		this.otherInstance = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		DistributedLockInterceptor interceptor = new DistributedLockInterceptor(
				new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ZERO));
		interceptor.setBeanFactory(new DefaultListableBeanFactory());
		ProxyFactory factory = new ProxyFactory(new Jobs());
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new DistributedLockAdvisor(interceptor, 0));
		this.jobs = (Jobs) factory.getProxy();
	}

	@AfterEach
	void tearDown() {
		this.client.close();
		this.otherInstance.close();
	}

	@Test
	void aLockedMethodReadsItsFencingTokenAndEachCallGetsAGreaterOne() {
		String id = UUID.randomUUID().toString();
		long first = this.jobs.token(id);
		long second = this.jobs.token(id);
		assertThat(second).isGreaterThan(first);
		assertThat(first).isPositive();
	}

	@Test
	void holdAtLeastKeepsTheLockTakenAfterTheMethodReturnsThenLetsAnotherInstanceIn() {
		String id = UUID.randomUUID().toString();
		long start = System.nanoTime();
		this.jobs.report(id);
		assertThat(this.client.holdsAtLeast).containsExactly(Duration.ofMillis(3000));
		// what is left of the 3 s from the method's start: the lock outlives the method, with room for a slow call
		assertThat(SharedRedis.redis().getExpire("lock:report:" + id, TimeUnit.MILLISECONDS)).isBetween(1000L, 3000L);
		DistributedLockTemplate other = new DistributedLockTemplate(this.otherInstance, Duration.ofSeconds(30),
				Duration.ofSeconds(10));
		assertThat(other.tryAcquire(LockDefinition.builder("report:" + id).acquireTimeout(Duration.ZERO).build()))
			.isEmpty();
		other.acquire(LockDefinition.of("report:" + id)).close();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(3000));
	}

	@Test
	void aNegativeOrMalformedHoldAtLeastIsAClearErrorAndTheMethodDoesNotRun() {
		assertThatThrownBy(() -> this.jobs.negative()).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("holdAtLeast")
			.hasMessageContaining("Jobs.negative()")
			.hasMessageContaining("negative");
		assertThatThrownBy(() -> this.jobs.malformed()).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("holdAtLeast 'soon'")
			.hasMessageContaining("Jobs.malformed()");
		assertThat(Jobs.runs).isZero();
	}

	static class Jobs {

		static int runs;

		@DistributedLock(name = "token", key = "#id")
		public long token(String id) {
			return LockContext.current().fencingToken();
		}

		@DistributedLock(name = "report", key = "#id", holdAtLeast = "3000ms")
		public void report(String id) {
		}

		@DistributedLock(holdAtLeast = "-1s")
		public void negative() {
			runs++;
		}

		@DistributedLock(holdAtLeast = "soon")
		public void malformed() {
			runs++;
		}

	}

}
