package io.github.distributedlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.aop.DistributedLockAdvisor;
import io.github.distributedlock.aop.DistributedLockInterceptor;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.redis.RedisLockClient;
import org.openjdk.jmh.annotations.Benchmark;
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
 * key), through {@code template.execute}, and through {@code getLock()}.
 */
@Threads(1)
public class AnnotationBenchmarks {

	public static class Service {

		@DistributedLock(name = "bench", key = "#id")
		public int locked(String id) {
			return id.length();
		}

	}

	@State(Scope.Benchmark)
	public static class Ours {

		LettuceConnectionFactory factory;

		RedisLockClient client;

		DistributedLockTemplate template;

		Service proxy;

		Lock lock;

		@Setup(Level.Trial)
		public void setUp() {
			this.factory = LockPeer.connectionFactory(System.getProperty("bench.redis.host", "127.0.0.1"),
					Integer.getInteger("bench.redis.port", 6379));
			this.client = new RedisLockClient(this.factory, "lock:");
			this.template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ofSeconds(30));
			ProxyFactory proxyFactory = new ProxyFactory(new Service());
			proxyFactory.setProxyTargetClass(true);
			proxyFactory.addAdvisor(new DistributedLockAdvisor(new DistributedLockInterceptor(this.template), 0));
			this.proxy = (Service) proxyFactory.getProxy();
			this.lock = this.template.getLock("bench:w6");
		}

		@TearDown(Level.Trial)
		public void tearDown() {
			this.client.close();
			this.factory.destroy();
		}

	}

	@Benchmark
	public int w6Annotation(Ours ours) {
		return ours.proxy.locked("w6");
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
