package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.aop.DistributedLockAdvisor;
import io.github.distributedlock.aop.DistributedLockInterceptor;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockClient;
import io.github.distributedlock.core.LockObserver;
import io.github.distributedlock.metrics.LockMetrics;
import io.github.distributedlock.metrics.LockObservationDecorator;
import io.github.distributedlock.redis.RedisLockClient;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * W6: the same uncontended lock taken through {@code @DistributedLock} (a Spring AOP proxy with a SpEL
 * key), through {@code template.execute}, and through {@code getLock()}; and the annotation again with a
 * Micrometer {@code MeterRegistry} and an {@code ObservationRegistry} (with its meter handler), as an application
 * with Actuator has them: the {@code distributed.lock.*} meters and the acquire observation on every call.
 */
@Threads(1)
public class AnnotationBenchmarks {

	public static class Service {

		@DistributedLock(name = "bench", key = "#id")
		public int locked(String id) {
			return id.length();
		}

	}

	/** The lock client, the template on it, an annotated proxy and a {@code Lock} view. */
	public abstract static class Setting {

		LettuceConnectionFactory factory;

		RedisLockClient client;

		DistributedLockTemplate template;

		Service proxy;

		Lock lock;

		@Setup(Level.Trial)
		public void setUp() {
			this.factory = LockPeer.connectionFactory(RedisAdmin.host(), RedisAdmin.port());
			this.client = new RedisLockClient(this.factory, "lock:");
			this.template = new DistributedLockTemplate(clientOfTemplate(this.client), Duration.ofSeconds(30),
					Duration.ofSeconds(30));
			this.proxy = proxy(this.template);
			this.lock = this.template.getLock("bench:w6");
		}

		/** The client the template runs on. */
		abstract LockClient clientOfTemplate(RedisLockClient client);

		@TearDown(Level.Trial)
		public void tearDown() {
			this.client.close();
			this.factory.destroy();
		}

	}

	/** Without registries. */
	@State(Scope.Benchmark)
	public static class Ours extends Setting {

		@Override
		LockClient clientOfTemplate(RedisLockClient client) {
			return client;
		}

	}

	/**
	 * With a meter registry and an observation registry (with its meter handler), as an application with
	 * Actuator has them: the client tells {@link LockMetrics}, and the template runs on the observed client.
	 */
	@State(Scope.Benchmark)
	public static class Observed extends Setting {

		@Override
		LockClient clientOfTemplate(RedisLockClient client) {
			SimpleMeterRegistry meters = new SimpleMeterRegistry();
			ObservationRegistry observations = ObservationRegistry.create();
			observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
			client.setLockObserver(new LockMetrics(meters));
			return new LockObservationDecorator(observations, null).decorate(client);
		}

	}

	/**
	 * The annotated proxy on a {@link StubLockClient} (no store), without and with the registries of
	 * {@link Observed}: what observability costs a call, in nanoseconds, without the Redis round trip.
	 */
	@State(Scope.Benchmark)
	public static class Stubbed {

		Service plain;

		Service observed;

		@Setup(Level.Trial)
		public void setUp() {
			this.plain = proxy(new DistributedLockTemplate(new StubLockClient(LockObserver.NONE), Duration.ofSeconds(30),
					Duration.ofSeconds(30)));
			SimpleMeterRegistry meters = new SimpleMeterRegistry();
			ObservationRegistry observations = ObservationRegistry.create();
			observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
			LockClient client = new LockObservationDecorator(observations, null)
				.decorate(new StubLockClient(new LockMetrics(meters)));
			this.observed = proxy(new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(30)));
		}

	}

	static Service proxy(DistributedLockTemplate template) {
		ProxyFactory proxyFactory = new ProxyFactory(new Service());
		proxyFactory.setProxyTargetClass(true);
		proxyFactory.addAdvisor(new DistributedLockAdvisor(new DistributedLockInterceptor(template), 0));
		return (Service) proxyFactory.getProxy();
	}

	@Benchmark
	@BenchmarkMode(Mode.AverageTime)
	@OutputTimeUnit(TimeUnit.NANOSECONDS)
	public int w6StubAnnotation(Stubbed stubbed) {
		return stubbed.plain.locked("w6");
	}

	@Benchmark
	@BenchmarkMode(Mode.AverageTime)
	@OutputTimeUnit(TimeUnit.NANOSECONDS)
	public int w6StubAnnotationObserved(Stubbed stubbed) {
		return stubbed.observed.locked("w6");
	}

	@Benchmark
	public int w6Annotation(Ours ours) {
		return ours.proxy.locked("w6");
	}

	@Benchmark
	public int w6AnnotationObserved(Observed observed) {
		return observed.proxy.locked("w6");
	}

	@Benchmark
	public Integer w6TemplateExecute(Ours ours) {
		return ours.template.execute("bench:w6", () -> 2);
	}

	@Benchmark
	public void w6GetLock(Ours ours) {
		ours.lock.lock();
		ours.lock.unlock();
	}

}
