package io.github.distributedlock.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the startup line says about a connection factory, read from its configuration (the factories here
 * are never started, so nothing connects).
 */
class RedisConnectionSummaryTests {

	@Test
	void standaloneIsHostAndPortWithTheClientsCommandTimeout() {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("redis.example", 6380),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		assertThat(RedisConnectionSummary.of(factory))
			.isEqualTo(new RedisConnectionSummary("redis.example:6380", Duration.ofSeconds(2)));
	}

	@Test
	void lettucesDefaultCommandTimeoutIsAMinute() {
		assertThat(RedisConnectionSummary.of(new LettuceConnectionFactory()).commandTimeout())
			.isEqualTo(Duration.ofSeconds(60));
	}

	@Test
	void sentinelNamesTheMasterAndTheSentinels() {
		RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration().master("mymaster")
			.sentinel("s1", 26379)
			.sentinel("s2", 26380);
		assertThat(RedisConnectionSummary.of(new LettuceConnectionFactory(sentinel)).target())
			.startsWith("sentinel master 'mymaster' via ")
			.contains("s1:26379")
			.contains("s2:26380");
	}

	@Test
	void clusterListsTheNodes() {
		RedisClusterConfiguration cluster = new RedisClusterConfiguration().clusterNode("n1", 7000)
			.clusterNode("n2", 7001);
		assertThat(RedisConnectionSummary.of(new LettuceConnectionFactory(cluster)).target()).startsWith("cluster ")
			.contains("n1:7000")
			.contains("n2:7001");
	}

	@Test
	void jedisStandaloneIsHostAndPortWithItsReadTimeout() {
		JedisConnectionFactory factory = new JedisConnectionFactory(new RedisStandaloneConfiguration("redis.example", 6380),
				JedisClientConfiguration.builder().readTimeout(Duration.ofSeconds(3)).build());
		assertThat(RedisConnectionSummary.of(factory))
			.isEqualTo(new RedisConnectionSummary("redis.example:6380", Duration.ofSeconds(3)));
	}

	@Test
	void jedisSentinelAndClusterAreNamedAsWithLettuce() {
		RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration().master("mymaster").sentinel("s1", 26379);
		assertThat(RedisConnectionSummary.of(new JedisConnectionFactory(sentinel)).target())
			.isEqualTo("sentinel master 'mymaster' via s1:26379");
		RedisClusterConfiguration cluster = new RedisClusterConfiguration().clusterNode("n1", 7000);
		assertThat(RedisConnectionSummary.of(new JedisConnectionFactory(cluster)).target()).isEqualTo("cluster n1:7000");
	}

	@Test
	void withoutAFactoryTheTimeoutIsUnknown() {
		assertThat(RedisConnectionSummary.of(null))
			.isEqualTo(new RedisConnectionSummary("no RedisConnectionFactory", null));
	}

}
