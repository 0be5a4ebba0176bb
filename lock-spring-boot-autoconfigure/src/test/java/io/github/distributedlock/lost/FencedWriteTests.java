package io.github.distributedlock.lost;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.github.distributedlock.core.DistributedLockTemplate;
import io.github.distributedlock.core.LockContext;
import io.github.distributedlock.core.LockDefinition;
import io.github.distributedlock.core.LockHandle;
import io.github.distributedlock.core.LockLostException;
import io.github.distributedlock.fencing.FencedJdbc;
import io.github.distributedlock.fencing.FencedRedis;
import io.github.distributedlock.fencing.StaleFencingTokenException;
import io.github.distributedlock.redis.RedisLockClient;
import io.github.distributedlock.test.SharedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabase;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Fenced writes on an embedded H2 database and a real redis-server: of two writers, the one with the older token
 * is refused, also when it is the holder of a lost lock writing after the next holder.
 */
class FencedWriteTests {

	private static final StringRedisTemplate redis = SharedRedis.redis();

	private static final String UPDATE = "update stock set qty = :qty, fence = :token where sku = :sku and fence < :token";

	private final List<RedisLockClient> clients = new ArrayList<>();

	private final String sku = "sku-" + UUID.randomUUID();

	private EmbeddedDatabase database;

	private JdbcClient jdbc;

	private FencedJdbc fencedJdbc;

	private final FencedRedis fencedRedis = new FencedRedis(SharedRedis.connectionFactory());

	@BeforeEach
	void createTable() {
		this.database = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true).build();
		this.jdbc = JdbcClient.create(this.database);
		this.jdbc.sql("create table stock (sku varchar(64) primary key, qty int not null, fence bigint default 0 not null)")
			.update();
		this.jdbc.sql("insert into stock (sku, qty) values (?, 0)").param(this.sku).update();
		this.fencedJdbc = new FencedJdbc(this.database);
	}

	@AfterEach
	void close() {
		this.clients.forEach(RedisLockClient::close);
		this.database.shutdown();
		redis.delete(List.of("stock:" + this.sku, FencedRedis.fencingTokenKey("stock:" + this.sku)));
	}

	private DistributedLockTemplate newInstance() {
		RedisLockClient client = new RedisLockClient(SharedRedis.connectionFactory(), "lock:");
		this.clients.add(client);
		return new DistributedLockTemplate(client, Duration.ofSeconds(30), Duration.ofSeconds(10));
	}

	private int quantity() {
		return this.jdbc.sql("select qty from stock where sku = ?").param(this.sku).query(Integer.class).single();
	}

	@Test
	void theDatabaseRefusesTheOlderToken() {
		assertThat(this.fencedJdbc.update(UPDATE, Map.of("sku", this.sku, "qty", 7), 200)).isEqualTo(1);
		assertThatThrownBy(() -> this.fencedJdbc.update(UPDATE, Map.of("sku", this.sku, "qty", 3), 100))
			.isInstanceOfSatisfying(StaleFencingTokenException.class, (ex) -> assertThat(ex.getToken()).isEqualTo(100));
		assertThat(quantity()).isEqualTo(7);
	}

	@Test
	void aLostHoldersLateWriteIsRefusedByTheDatabaseAndByRedis() {
		DistributedLockTemplate a = newInstance();
		DistributedLockTemplate b = newInstance();
		String key = "stock:" + this.sku;
		// A's lease runs out (a pause); B takes the lock and writes with its greater token
		LockHandle paused = a.acquire(LockDefinition.builder(key).lease(Duration.ofMillis(200)).autoRenew(false).build());
		b.execute(key, () -> {
			this.fencedJdbc.update(UPDATE, Map.of("sku", this.sku, "qty", 50));
			this.fencedRedis.hset(key, "qty", "50", LockContext.current().fencingToken());
			return null;
		});
		// A wakes up and writes: refused by both stores
		assertThatThrownBy(() -> this.fencedJdbc.update(UPDATE, Map.of("sku", this.sku, "qty", 10), paused.fencingToken()))
			.isInstanceOf(StaleFencingTokenException.class);
		assertThatThrownBy(() -> this.fencedRedis.hset(key, "qty", "10", paused.fencingToken()))
			.isInstanceOf(StaleFencingTokenException.class);
		assertThat(quantity()).isEqualTo(50);
		assertThat(redis.opsForHash().get(key, "qty")).isEqualTo("50");
		assertThatThrownBy(paused::close).isInstanceOf(LockLostException.class);
	}

	@Test
	void updateBindsTheTokenOfTheInnermostLock() {
		DistributedLockTemplate template = newInstance();
		long token = template.execute("stock:" + this.sku, () -> {
			this.fencedJdbc.update(UPDATE, Map.of("sku", this.sku, "qty", 9));
			return LockContext.current().fencingToken();
		});
		assertThat(this.jdbc.sql("select fence from stock where sku = ?").param(this.sku).query(Long.class).single())
			.isEqualTo(token);
	}

	@Test
	void badStatementsAreRefusedWithTheReason() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.fencedJdbc.update("update stock set qty = :qty where sku = :sku", Map.of(), 5))
			.withMessageContaining(":token");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.fencedJdbc.update(UPDATE, Map.of("token", 9), 5))
			.withMessageContaining("'token'");
		assertThatThrownBy(() -> this.fencedJdbc.update(UPDATE, Map.of("sku", this.sku, "qty", 1)))
			.isInstanceOf(IllegalStateException.class);
	}

	@Test
	void redisKeepsTheNewerStringAndAcceptsTheSameTokenTwice() {
		String key = "stock:" + this.sku;
		this.fencedRedis.set(key, "b", 2_000_000_000_000_002L);
		// sent twice (a retry): the same acquisition, accepted
		this.fencedRedis.set(key, "b", 2_000_000_000_000_002L);
		assertThatThrownBy(() -> this.fencedRedis.set(key, "a", 2_000_000_000_000_001L))
			.isInstanceOfSatisfying(StaleFencingTokenException.class,
					(ex) -> assertThat(ex.getToken()).isEqualTo(2_000_000_000_000_001L));
		assertThat(redis.opsForValue().get(key)).isEqualTo("b");
		assertThat(redis.opsForValue().get(FencedRedis.fencingTokenKey(key))).isEqualTo("2000000000000002");
		// a longer number is a greater token, compared exactly beyond a double's precision
		this.fencedRedis.set(key, "c", Long.MAX_VALUE);
		assertThatThrownBy(() -> this.fencedRedis.set(key, "d", Long.MAX_VALUE - 1))
			.isInstanceOf(StaleFencingTokenException.class);
		assertThat(redis.opsForValue().get(key)).isEqualTo("c");
		assertThatIllegalArgumentException().isThrownBy(() -> this.fencedRedis.set(key, "e", 0));
	}

	@Test
	void theTokenKeyLivesBesideTheValueAndGoesWithIt() {
		String key = "stock:" + this.sku;
		assertThat(FencedRedis.fencingTokenKey(key)).isEqualTo("{" + key + "}:fencing-token");
		assertThat(FencedRedis.fencingTokenKey("{stock}:" + this.sku)).isEqualTo("{stock}:" + this.sku + ":fencing-token");
		this.fencedRedis.hset(key, "qty", "1", 5);
		redis.expire(key, Duration.ofSeconds(60));
		this.fencedRedis.hset(key, "qty", "2", 6);
		assertThat(redis.getExpire(FencedRedis.fencingTokenKey(key))).isBetween(1L, 60L);
	}

}
