package io.github.distributedlock.autoconfigure;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.aop.InvalidLockAnnotationException;
import io.github.distributedlock.aop.LockAnnotationValidator;
import io.github.distributedlock.test.RedisServer;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Mono;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code @DistributedLock} is checked when the context starts: a mistake fails the startup with a
 * failure-analysis report naming the bean, the method, the attribute and the value; a correct application
 * starts, lazy beans stay uncreated.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupValidationTests {

	private static final RedisServer server = SharedRedis.server();

	private final LockAnnotationFailureAnalyzer analyzer = new LockAnnotationFailureAnalyzer();

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DistributedLockAutoConfiguration.class,
							ReactiveDistributedLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + server.host(), "spring.data.redis.port=" + server.port());
	}

	static Stream<Arguments> mistakes() {
		return Stream.of(
				Arguments.of(SpelService.class, "spelService", "SpelService.pay(String)", "key", "#id.",
						"SpEL expression"),
				Arguments.of(LeaseService.class, "leaseService", "LeaseService.run()", "lease", "3 parsecs",
						"\"30s\""),
				Arguments.of(HoldService.class, "holdService", "HoldService.run()", "holdAtLeast", "-1s",
						"positive duration"),
				Arguments.of(CountService.class, "countService", "CountService.count()", "onFailure", "SKIP",
						"Return Integer or an Optional"),
				Arguments.of(BlankService.class, "blankService", "BlankService.run(String)", "key", " ",
						"leave key out"),
				Arguments.of(PlaceholderService.class, "placeholderService", "PlaceholderService.run()",
						"acquireTimeout", "${app.missing}", "default"),
				Arguments.of(NoPermitsService.class, "noPermitsService", "NoPermitsService.run()", "permits", "0",
						"Leave permits out"),
				Arguments.of(NegativePermitsService.class, "negativePermitsService", "NegativePermitsService.run()",
						"permits", "-2", "Leave permits out"),
				Arguments.of(ReadSemaphoreService.class, "readSemaphoreService", "ReadSemaphoreService.run()",
						"permits", "3", "REENTRANT"));
	}

	@ParameterizedTest(name = "{3} = \"{4}\"")
	@MethodSource("mistakes")
	<T> void aMistakeFailsTheStartupWithAReportNamingBeanMethodAttributeAndValue(Class<T> beanClass,
			String beanName, String method, String attribute, String value, String fix) {
		contextRunner().withBean(beanName, beanClass).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).isInstanceOf(InvalidLockAnnotationException.class);
			FailureAnalysis analysis = this.analyzer.analyze(failure);
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).contains("@DistributedLock")
				.contains(method)
				.contains("bean '" + beanName + "'")
				.contains("Attribute: " + attribute)
				.contains("Value: \"" + value + "\"");
			assertThat(analysis.getAction()).contains(attribute).contains(method).contains(fix);
		});
	}

	@Test
	void aLazyBeanIsCheckedWithoutBeingCreated() {
		LazyMistake.created.set(0);
		contextRunner().withUserConfiguration(LazyMistake.class).run((context) -> {
			assertThat(context).hasFailed();
			FailureAnalysis analysis = this.analyzer.analyze(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("bean 'lazyService'").contains("LeaseService.run()");
		});
		assertThat(LazyMistake.created).hasValue(0);
	}

	@Test
	void aCorrectApplicationStartsAndItsLocksWork(CapturedOutput output) {
		CorrectApplication.lazyCreated.set(0);
		contextRunner().withUserConfiguration(CorrectApplication.class)
			.withPropertyValues("app.lease=45s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(CorrectApplication.lazyCreated).hasValue(0);
				// pay, interfacePay, metaAnnotated, lazy run, and the three asynchronous ones
				assertThat(context.getBean(LockAnnotationValidator.class).getValidatedMethodCount()).isEqualTo(7);
				Payments payments = context.getBean(Payments.class);
				assertThat(AopUtils.isAopProxy(payments)).isTrue();
				assertThat(payments.pay("7")).isEqualTo("paid 7");
			});
		// held until the result completes: no warning; a plain Future cannot be followed, so it warns
		assertThat(output).doesNotContain("AsyncService.later() (bean 'asyncService') returns")
			.doesNotContain("AsyncService.reactive() (bean 'asyncService') returns")
			.contains("AsyncService.submitted() (bean 'asyncService') returns Future: the lock is held only until "
					+ "the method returns")
			.doesNotContain("OrderService.pay(String) (bean 'orderService') returns")
			.contains("@DistributedLock on private method OrderService.helper (bean 'orderService') is never locked");
	}

	@Test
	void springBootPrintsTheReportWhenTheApplicationFailsToStart(CapturedOutput output) {
		assertThat(FailedStartup.run(Map.of(), LeaseService.class))
			.isInstanceOf(InvalidLockAnnotationException.class);
		assertThat(output).contains("APPLICATION FAILED TO START")
			.contains("The @DistributedLock annotation on LeaseService.run() of bean '")
			.contains("LeaseService' cannot work")
			.contains("Value: \"3 parsecs\"")
			.contains("Change lease of @DistributedLock on LeaseService.run().");
	}

	static class SpelService {

		@DistributedLock(key = "#id.")
		public void pay(String id) {
		}

	}

	static class LeaseService {

		@DistributedLock(lease = "3 parsecs")
		public void run() {
		}

	}

	static class HoldService {

		@DistributedLock(holdAtLeast = "-1s")
		public void run() {
		}

	}

	static class CountService {

		@DistributedLock(onFailure = OnLockFailure.SKIP)
		public int count() {
			return 1;
		}

	}

	static class BlankService {

		@DistributedLock(key = { "#id", " " })
		public void run(String id) {
		}

	}

	static class PlaceholderService {

		@DistributedLock(acquireTimeout = "${app.missing}")
		public void run() {
		}

	}

	static class NoPermitsService {

		@DistributedLock(permits = 0)
		public void run() {
		}

	}

	static class NegativePermitsService {

		@DistributedLock(permits = -2)
		public void run() {
		}

	}

	static class ReadSemaphoreService {

		@DistributedLock(permits = 3, type = LockType.READ)
		public void run() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class LazyMistake {

		static final AtomicInteger created = new AtomicInteger();

		@Bean
		@Lazy
		LeaseService lazyService() {
			created.incrementAndGet();
			return new LeaseService();
		}

	}

	@java.lang.annotation.Retention(java.lang.annotation.RetentionPolicy.RUNTIME)
	@java.lang.annotation.Target(java.lang.annotation.ElementType.METHOD)
	@DistributedLock(name = "meta", lease = "${app.lease}")
	@interface MetaLock {

	}

	interface Payments {

		@DistributedLock(name = "payment", key = "#id")
		String pay(String id);

	}

	static class PaymentsImpl implements Payments {

		@Override
		public String pay(String id) {
			return "paid " + id;
		}

		@MetaLock
		public void metaAnnotated() {
		}

	}

	static class OrderService {

		@DistributedLock
		private void helper() {
		}

		@DistributedLock(name = "order", key = "#orderId", lease = "10s", acquireTimeout = "0",
				holdAtLeast = "1s", onFailure = OnLockFailure.SKIP)
		public Integer pay(String orderId) {
			return 1;
		}

	}

	static class LazyService {

		@DistributedLock
		public void run() {
		}

	}

	static class AsyncService {

		@DistributedLock
		public CompletableFuture<String> later() {
			return CompletableFuture.completedFuture("done");
		}

		@DistributedLock
		public Mono<String> reactive() {
			return Mono.just("done");
		}

		@DistributedLock
		public Future<String> submitted() {
			return CompletableFuture.completedFuture("done");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CorrectApplication {

		static final AtomicInteger lazyCreated = new AtomicInteger();

		@Bean
		Payments payments() {
			return new PaymentsImpl();
		}

		@Bean
		OrderService orderService() {
			return new OrderService();
		}

		@Bean
		@Lazy
		LazyService lazyService() {
			lazyCreated.incrementAndGet();
			return new LazyService();
		}

		@Bean
		AsyncService asyncService() {
			return new AsyncService();
		}

	}

}
