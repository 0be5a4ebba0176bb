package io.github.distributedlock.aop;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.LockType;
import io.github.distributedlock.annotation.OnLockFailure;
import io.github.distributedlock.core.DistributedLockException;
import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockAcquisitionException;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.LockHolder;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The {@code @DistributedLock} interceptor on {@link ProxyFactory} proxies, over a real lock client.
 */
@SuppressWarnings("try") // a resource that only holds a lock for the block is not referenced in it
class DistributedLockInterceptorTests {

	private static LettuceConnectionFactory connectionFactory;

	private RecordingLockClient client;

	private DistributedLockTemplate template;

	private DistributedLockInterceptor interceptor;

	private OrderService orders;

	private OrderService target;

	@BeforeAll
	static void connect() {
		connectionFactory = SharedRedis.connectionFactory();
	}

	@BeforeEach
	void setUp() {
		this.client = new RecordingLockClient(new RedisLockClient(connectionFactory, "lock:"));
		this.template = new DistributedLockTemplate(this.client, Duration.ofSeconds(30), Duration.ofSeconds(5));
		this.interceptor = new DistributedLockInterceptor(this.template);
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerSingleton("tenant", new Tenant("acme"));
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("test", Map.of("app.lease", "45s", "app.timeout", "250ms")));
		beanFactory.addEmbeddedValueResolver(environment::resolveRequiredPlaceholders);
		this.interceptor.setBeanFactory(beanFactory);
		this.target = new OrderService();
		this.orders = proxy(this.target);
	}

	@AfterEach
	void tearDown() {
		this.client.close();
	}

	@SuppressWarnings("unchecked")
	private <T> T proxy(T target) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new DistributedLockAdvisor(this.interceptor, 0));
		return (T) factory.getProxy();
	}

	@Test
	void keyExpressionSeesArgumentsByName() {
		assertThat(this.orders.pay(new Order("42"))).isEqualTo("paid 42");
		assertThat(this.client.acquiredKeys()).containsExactly("order:42");
		assertThat(this.client.releases).containsExactly("order:42");
	}

	@Test
	void keyExpressionSeesArgumentsByIndexRootAndBeans() {
		this.orders.byIndex("7");
		this.orders.rootMethodName();
		this.orders.tenantBean();
		assertThat(this.client.acquiredKeys()).containsExactly("OrderService.byIndex:7", "root:rootMethodName",
				"tenant:acme");
	}

	@Test
	void withoutKeyTheNameAloneIsTheLockAndTheDefaultNameIsClassAndMethod() {
		this.orders.noKey();
		assertThat(this.client.acquiredKeys()).containsExactly("OrderService.noKey");
	}

	@Test
	void attributesBecomeTheLockSettingsAndPlaceholdersAreResolved() {
		this.orders.placeholders();
		this.orders.shortHardLease();
		assertThat(this.client.acquisitions).extracting(RecordingLockClient.Acquisition::lease)
			.containsExactly(Duration.ofSeconds(45), Duration.ofMillis(50));
		assertThat(this.client.acquisitions).extracting(RecordingLockClient.Acquisition::autoRenew)
			.containsExactly(true, false);
		assertThat(this.client.acquisitions.get(0).timeout()).isBetween(Duration.ofMillis(200), Duration.ofMillis(250));
	}

	@Test
	void severalKeysAreAllLockedInOneSortedOrderAndAllReleased() {
		this.orders.transfer("b", "a");
		this.orders.transfer("a", "b");
		assertThat(this.client.acquiredKeys()).containsExactly("transfer:a", "transfer:b", "transfer:a", "transfer:b");
		assertThat(this.client.releases).containsExactly("transfer:b", "transfer:a", "transfer:b", "transfer:a");
	}

	@Test
	void metaAnnotationAndInterfaceAnnotationsAreFound() {
		this.orders.meta("9");
		Payments payments = new PaymentsImpl();
		ProxyFactory factory = new ProxyFactory(payments);
		factory.addAdvisor(new DistributedLockAdvisor(this.interceptor, 0));
		Payments proxy = (Payments) factory.getProxy();
		assertThat(proxy.pay("5")).isEqualTo("5");
		assertThat(this.client.acquiredKeys()).containsExactly("meta:9", "iface:5");
	}

	@Test
	void annotationIsResolvedOncePerMethod() throws Exception {
		var method = OrderService.class.getMethod("pay", Order.class);
		LockOperation first = this.interceptor.getOperation(method, OrderService.class);
		assertThat(first).isNotNull();
		assertThat(this.interceptor.getOperation(method, OrderService.class)).isSameAs(first);
		assertThat(this.interceptor.getOperation(Object.class.getMethod("toString"), OrderService.class)).isNull();
	}

	@Test
	void aSpelSyntaxErrorNamesMethodAndExpressionAndTheBodyDoesNotRun() {
		assertThatThrownBy(() -> this.orders.badSyntax(new Order("1"))).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("OrderService.badSyntax(Order)")
			.hasMessageContaining("'#order.'");
		assertBodyNeverRanAndNothingWasLocked();
	}

	@Test
	void aKeyThatEvaluatesToNullOrEmptyIsRejected() {
		assertThatThrownBy(() -> this.orders.nullKey(new Order(null))).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("OrderService.nullKey(Order)")
			.hasMessageContaining("'#order.id'")
			.hasMessageContaining("null");
		assertThatThrownBy(() -> this.orders.nullKey(new Order(" "))).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("empty");
		assertThatThrownBy(() -> this.orders.failingKey()).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("'#nothere.id'")
			.hasMessageContaining("OrderService.failingKey()");
		assertBodyNeverRanAndNothingWasLocked();
	}

	@Test
	void badDurationsAreRejectedWithMethodAndValue() {
		assertThatThrownBy(() -> this.orders.malformedLease()).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("'3 parsecs'")
			.hasMessageContaining("OrderService.malformedLease()");
		assertThatThrownBy(() -> this.orders.negativeLease()).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("'-1s'")
			.hasMessageContaining("positive");
		assertThatThrownBy(() -> this.orders.leaseTooShortToRenew()).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("'50ms'")
			.hasMessageContaining("too short to renew");
		assertThatThrownBy(() -> this.orders.negativeTimeout()).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("acquireTimeout '-5s'");
		assertBodyNeverRanAndNothingWasLocked();
	}

	@Test
	void skipReturnsNullOrEmptyOptionalWhenTheLockIsBusy() throws Exception {
		try (LockHolder holder = new LockHolder(this.template.getLock("busy"))) {
			assertThat(this.orders.skip()).isNull();
			assertThat(this.orders.skipOptional()).isEmpty();
			assertThatThrownBy(() -> this.orders.throwing()).isInstanceOf(LockAcquisitionException.class)
				.hasMessageContaining("'busy'");
		}
		assertThat(this.target.bodyRuns).hasValue(0);
		assertThat(this.orders.skip()).isEqualTo("ran");
		assertThat(this.orders.skipOptional()).contains("ran");
	}

	@Test
	void skipOnAMethodReturningAPrimitiveIsRejected() {
		assertThatThrownBy(() -> this.orders.skipPrimitive()).isInstanceOf(DistributedLockException.class)
			.hasMessageContaining("OrderService.skipPrimitive()")
			.hasMessageContaining("int");
		assertBodyNeverRanAndNothingWasLocked();
	}

	@Test
	void theMethodsOwnExceptionPropagatesUnchangedAndTheLockIsReleased() {
		assertThatThrownBy(() -> this.orders.checked()).isInstanceOf(IOException.class).hasMessage("from the body");
		assertThat(this.client.releases).containsExactly("checked");
		assertThat(this.template.getLock("checked").tryLock()).isTrue();
		this.template.getLock("checked").unlock();
	}

	@Test
	void readAndWriteTypesReachTheClient() {
		this.orders.read("1");
		assertThat(this.client.acquisitions).extracting(RecordingLockClient.Acquisition::type)
			.containsExactly(LockType.READ);
	}

	private void assertBodyNeverRanAndNothingWasLocked() {
		assertThat(this.target.bodyRuns).hasValue(0);
		assertThat(this.client.acquisitions).isEmpty();
	}

	record Order(String id) {
	}

	record Tenant(String id) {
	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.METHOD)
	@DistributedLock(name = "meta", key = "#id")
	@interface MetaLock {

	}

	interface Payments {

		@DistributedLock(name = "iface", key = "#id")
		String pay(String id);

	}

	static class PaymentsImpl implements Payments {

		@Override
		public String pay(String id) {
			return id;
		}

	}

	public static class OrderService {

		final AtomicInteger bodyRuns = new AtomicInteger();

		@DistributedLock(name = "order", key = "#order.id")
		public String pay(Order order) {
			return "paid " + order.id();
		}

		@DistributedLock(key = "#p0")
		public void byIndex(String id) {
		}

		@DistributedLock(name = "root", key = "#root.methodName")
		public void rootMethodName() {
		}

		@DistributedLock(name = "tenant", key = "@tenant.id")
		public void tenantBean() {
		}

		@DistributedLock
		public void noKey() {
		}

		@DistributedLock(lease = "${app.lease}", acquireTimeout = "${app.timeout}")
		public void placeholders() {
		}

		@DistributedLock(lease = "50ms", autoRenew = false)
		public void shortHardLease() {
		}

		@DistributedLock(name = "transfer", key = { "#from", "#to" })
		public void transfer(String from, String to) {
		}

		@MetaLock
		public void meta(String id) {
		}

		@DistributedLock(key = "#order.")
		public void badSyntax(Order order) {
			this.bodyRuns.incrementAndGet();
		}

		@DistributedLock(key = "#order.id")
		public void nullKey(Order order) {
			this.bodyRuns.incrementAndGet();
		}

		@DistributedLock(key = "#nothere.id")
		public void failingKey() {
			this.bodyRuns.incrementAndGet();
		}

		@DistributedLock(lease = "3 parsecs")
		public void malformedLease() {
			this.bodyRuns.incrementAndGet();
		}

		@DistributedLock(lease = "-1s")
		public void negativeLease() {
			this.bodyRuns.incrementAndGet();
		}

		@DistributedLock(lease = "50ms")
		public void leaseTooShortToRenew() {
			this.bodyRuns.incrementAndGet();
		}

		@DistributedLock(acquireTimeout = "-5s")
		public void negativeTimeout() {
			this.bodyRuns.incrementAndGet();
		}

		@DistributedLock(name = "busy", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		public String skip() {
			this.bodyRuns.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "busy", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
		public Optional<String> skipOptional() {
			this.bodyRuns.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedLock(name = "busy", acquireTimeout = "0")
		public String throwing() {
			this.bodyRuns.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "busy", onFailure = OnLockFailure.SKIP)
		public int skipPrimitive() {
			this.bodyRuns.incrementAndGet();
			return 1;
		}

		@DistributedLock(name = "checked")
		public void checked() throws IOException {
			throw new IOException("from the body");
		}

		@DistributedLock(name = "price", key = "#sku", type = LockType.READ)
		public List<String> read(String sku) {
			return List.of(sku);
		}

	}

}
