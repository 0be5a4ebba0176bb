package io.github.distributedlock.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.stream.Stream;

import io.github.distributedlock.autoconfigure.DistributedLockAutoConfiguration;
import io.github.distributedlock.autoconfigure.DistributedLockIntegrationAutoConfiguration;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.docs.MigratingSnippets.Cleanup;
import io.github.distributedlock.docs.MigratingSnippets.ExportJob;
import io.github.distributedlock.docs.MigratingSnippets.Exports;
import io.github.distributedlock.docs.MigratingSnippets.Invoices;
import io.github.distributedlock.docs.MigratingSnippets.Payments;
import io.github.distributedlock.docs.MigratingSnippets.Prices;
import io.github.distributedlock.docs.MigratingSnippets.ReportJob;
import io.github.distributedlock.sample.TestRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The snippets of docs/migrating.md ({@link MigratingSnippets}) run as an application runs them: beans of a Spring
 * Boot application with the library's auto-configuration, on a real Redis, called through their proxies. And every YAML block of the
 * guide starts the library's auto-configuration (which refuses a {@code distributed-lock.*} key it does not know).
 */
class MigratingSnippetsTests {

	private static final Path GUIDE = Path.of("..", "docs", "migrating.md");

	private static TestRedis redis;

	private static ConfigurableApplicationContext app;

	@BeforeAll
	static void start() throws IOException {
		redis = TestRedis.start();
		// the guide's key prefix, not the sample's (its application.yml is on this class path)
		app = run(List.of("--distributed-lock.key-prefix=lock:", "--distributed-lock.acquire-timeout=1s"));
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
		redis.close();
	}

	@Test
	void theShedLockJobRunsOnceAndTheNextCallSkipsWhileItsMinimumHoldLasts() {
		ReportJob job = app.getBean(ReportJob.class);
		job.scheduledTask();   // LockContext.current() inside did not throw: it ran under the lock
		job.scheduledTask();
		assertThat(job.runs()).isEqualTo(1);
		long ttlSeconds = redis().getExpire("lock:scheduledTaskName", TimeUnit.SECONDS);
		assertThat(ttlSeconds).as("the lock kept for holdAtLeast = 14m").isBetween(13 * 60L, 14 * 60L);
	}

	@Test
	void theCappedJobHoldsAHardLeaseOfTenMinutesAndReleasesIt() {
		ExportJob job = app.getBean(ExportJob.class);
		job.export();
		assertThat(job.leaseMillisSeen()).isBetween(Duration.ofMinutes(9).toMillis(), Duration.ofMinutes(10).toMillis());
		assertThat(redis().hasKey("lock:nightly-export")).isFalse();
	}

	@Test
	void theExecutorStyleCleanupRunsOnceWhileItsMinimumHoldLasts() {
		Cleanup cleanup = app.getBean(Cleanup.class);
		assertThat(cleanup.run()).isTrue();
		assertThat(cleanup.run()).as("skipped: held for 30 s at least").isFalse();
		assertThat(cleanup.runs).hasValue(1);
	}

	@Test
	void theRedissonStyleLockWaitsPastTheAcquireTimeoutAndTheTryLockHoldsAHardLease() throws Exception {
		Payments payments = app.getBean(Payments.class);
		DistributedLockTemplate template = app.getBean(DistributedLockTemplate.class);
		assertThat(template.getDefaultAcquireTimeout()).isEqualTo(Duration.ofSeconds(1));
		CountDownLatch held = new CountDownLatch(1);
		CompletableFuture<Void> holder = CompletableFuture.runAsync(() -> {
			Lock lock = template.getLock("myLock");
			lock.lock();
			try {
				held.countDown();
				Thread.sleep(2000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				lock.unlock();
			}
		});
		assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();
		long start = System.nanoTime();
		payments.lockAndUnlock();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("lock() waited past the 1 s acquire timeout")
			.isGreaterThan(Duration.ofSeconds(1));
		holder.get(10, TimeUnit.SECONDS);

		assertThat(payments.tryLockWithLease()).isTrue();
		assertThat(redis().hasKey("lock:myLock")).isFalse();
	}

	@Test
	void fencingTokensOfSuccessiveHoldersIncrease() {
		Payments payments = app.getBean(Payments.class);
		payments.fenced();
		long first = payments.tokenSeen;
		payments.fenced();
		assertThat(payments.tokenSeen).isGreaterThan(first).isPositive();
	}

	@Test
	void theReadWriteMethodsAndTheViewShareOneLock() throws Exception {
		Prices prices = app.getBean(Prices.class);
		assertThat(prices.price("sku-1")).isEqualTo(100);
		prices.reprice("sku-1", 120);
		prices.withTheView("sku-1");
		// a writer holding the view's write side keeps the annotated reader out
		DistributedLockTemplate template = app.getBean(DistributedLockTemplate.class);
		Lock write = template.getReadWriteLock("price:sku-2").writeLock();
		write.lock();
		try {
			CompletableFuture<Long> reader = CompletableFuture.supplyAsync(() -> prices.price("sku-2"));
			assertThat(reader).failsWithin(Duration.ofSeconds(10))
				.withThrowableThat()
				.withRootCauseInstanceOf(LockAcquisitionException.class);
		}
		finally {
			write.unlock();
		}
	}

	@Test
	void theSemaphoreLetsThreeInAtOnceAndHandsAClosedPermitToTheNextWaiter() throws Exception {
		Exports exports = app.getBean(Exports.class);
		ExecutorService pool = Executors.newFixedThreadPool(6);
		try {
			List<Future<?>> calls = new ArrayList<>();
			for (int i = 0; i < 6; i++) {
				calls.add(pool.submit(() -> exports.export("acme")));
			}
			for (Future<?> call : calls) {
				call.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(exports.mostInside()).isBetween(1, 3);

		// one permit per owner, a thread for blocking calls: three threads take the three permits (one thread
		// asking three times would re-enter its one permit, as the guide says)
		ExecutorService holders = Executors.newFixedThreadPool(4);
		List<LockHandle> permits = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				Optional<LockHandle> permit = holders.submit(exports::permit).get(10, TimeUnit.SECONDS);
				assertThat(permit).isPresent();
				permits.add(permit.get());
			}
			Future<Optional<LockHandle>> fourth = holders.submit(exports::permit);
			await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> !fourth.isDone());
			permits.get(0).close();
			Optional<LockHandle> granted = fourth.get(10, TimeUnit.SECONDS);
			assertThat(granted).isPresent();
			granted.get().close();
		}
		finally {
			holders.shutdownNow();
		}
		permits.get(1).close();
		permits.get(2).close();
	}

	@Test
	void theStartersLockRegistryRunsTheIntegrationSnippet() throws Exception {
		assertThat(app.getBean(Invoices.class).invoice(42)).isEqualTo("invoice 42");
	}

	/** What the guide says of Redisson's replica check kept on a primary that has no replica. */
	@Test
	void replicaSyncOnAPrimaryWithoutReplicasFailsEveryAcquisitionAfterItsAcquireTimeout() {
		library().withPropertyValues("distributed-lock.sync-replicas=1", "distributed-lock.sync-timeout=100ms")
			.run((context) -> assertThatThrownBy(() -> context.getBean(DistributedLockTemplate.class)
				.execute(LockDefinition.builder("no-replica").acquireTimeout(Duration.ofSeconds(1)).build(), () -> "ran"))
				.isInstanceOf(LockAcquisitionException.class));
	}

	/**
	 * Each YAML block of the guide, as the configuration of the library's auto-configuration: it starts (a
	 * {@code distributed-lock.*} key it does not know, or a value it cannot use, fails the startup) and sees every
	 * value of the block.
	 */
	@Test
	void everyYamlBlockOfTheGuideStartsTheLibrary() throws IOException {
		List<List<String>> blocks = yamlBlocks();
		assertThat(blocks).hasSizeGreaterThanOrEqualTo(3);
		for (List<String> block : blocks) {
			String text = String.join("\n", block);
			List<PropertySource<?>> sources = new YamlPropertySourceLoader().load("docs/migrating.md",
					new ByteArrayResource(text.getBytes(StandardCharsets.UTF_8)));
			assertThat(sources).hasSize(1);
			EnumerablePropertySource<?> yaml = (EnumerablePropertySource<?>) sources.get(0);
			assertThat(yaml.getPropertyNames()).isNotEmpty();
			library().withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(yaml))
				.run((context) -> {
					assertThat(context).as(text).hasNotFailed().hasSingleBean(DistributedLockTemplate.class);
					for (String name : yaml.getPropertyNames()) {
						assertThat(context.getEnvironment().getProperty(name)).as("%s in%n%s", name, text)
							.isEqualTo(String.valueOf(yaml.getProperty(name)));
					}
				});
		}
	}

	private static List<List<String>> yamlBlocks() throws IOException {
		List<String> lines = Files.readAllLines(GUIDE);
		List<List<String>> blocks = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			if (lines.get(i).equals("```yaml")) {
				List<String> block = new ArrayList<>();
				for (i++; !lines.get(i).startsWith("```"); i++) {
					block.add(lines.get(i));
				}
				blocks.add(block);
			}
		}
		return blocks;
	}

	private static ConfigurableApplicationContext run(List<String> more) {
		List<String> args = new ArrayList<>(List.of(redis.connectionArguments()));
		args.add("--spring.main.banner-mode=off");
		args.addAll(more);
		return new SpringApplicationBuilder(Snippets.class).web(WebApplicationType.NONE).run(args.toArray(String[]::new));
	}

	/** The library's auto-configuration alone, on the test's Redis. */
	private static ApplicationContextRunner library() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DistributedLockAutoConfiguration.class))
			.withPropertyValues(Stream.of(redis.connectionArguments()).map((argument) -> argument.substring(2))
				.toArray(String[]::new));
	}

	private static StringRedisTemplate redis() {
		return app.getBean(StringRedisTemplate.class);
	}

	/** The snippets' beans, with the auto-configurations an application with the starter gets for them. */
	@SpringBootConfiguration
	@ImportAutoConfiguration({ AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
			DistributedLockAutoConfiguration.class, DistributedLockIntegrationAutoConfiguration.class })
	static class Snippets {

		@Bean
		ReportJob reportJob() {
			return new ReportJob();
		}

		@Bean
		ExportJob exportJob() {
			return new ExportJob();
		}

		@Bean
		Cleanup cleanup(DistributedLockTemplate lockTemplate) {
			return new Cleanup(lockTemplate);
		}

		@Bean
		Payments payments(DistributedLockTemplate lockTemplate) {
			return new Payments(lockTemplate);
		}

		@Bean
		Prices prices(DistributedLockTemplate lockTemplate) {
			return new Prices(lockTemplate);
		}

		@Bean
		Exports exports(DistributedLockTemplate lockTemplate) {
			return new Exports(lockTemplate);
		}

		@Bean
		Invoices invoices(LockRegistry<?> lockRegistry) {
			return new Invoices(lockRegistry);
		}

	}

}
