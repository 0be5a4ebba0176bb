package io.github.distributedlock.redis;

import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The channel names of each notification mode: a sharded release channel is in the hash slot of its lock's key,
 * whatever the key, and starts with the key prefix; its grant channels are in the same slot.
 */
class NotificationChannelsTests {

	@Test
	void everySlotHasAShardedChannelInThatSlotUnderThePrefix() {
		NotificationChannels channels = new NotificationChannels("lock:", NotificationMode.SHARDED);
		for (int slot = 0; slot < NotificationChannels.SLOTS; slot++) {
			String channel = channels.ofSlot(slot);
			assertThat(ClusterSlots.of(channel)).as(channel).isEqualTo(slot);
			assertThat(channel).startsWith("lock:__released{").endsWith("}");
		}
	}

	@Test
	void aKeysShardedChannelAndItsGrantChannelsAreInTheKeysSlot() {
		NotificationChannels channels = new NotificationChannels("lock:", NotificationMode.SHARDED);
		for (String key : new String[] { "lock:order:42", "lock:{tenant}:a", "lock:a}b{", "lock:{}x", "lock:ünïcode",
				"lock:" + UUID.randomUUID() }) {
			String channel = channels.of(key);
			assertThat(ClusterSlots.of(channel)).as(key).isEqualTo(ClusterSlots.of(key));
			assertThat(ClusterSlots.of(channel + ":" + UUID.randomUUID())).isEqualTo(ClusterSlots.of(key));
		}
	}

	@Test
	void aPrefixWithAHashTagOfItsOwnPutsEveryChannelInItsSlot() {
		NotificationChannels channels = new NotificationChannels("{locks}:", NotificationMode.SHARDED);
		String key = "{locks}:order:42";
		assertThat(ClusterSlots.of(channels.of(key))).isEqualTo(ClusterSlots.of(key)).isEqualTo(ClusterSlots.of("locks"));
	}

	@Test
	void aPrefixWithBracesButNoHashTagStillGivesEveryKeyAChannelInItsSlot() {
		for (String prefix : new String[] { "x{", "x{}", "}x{" }) {
			NotificationChannels channels = new NotificationChannels(prefix, NotificationMode.SHARDED);
			for (String key : new String[] { prefix + "order:42", prefix + "{tenant}:a", prefix }) {
				assertThat(ClusterSlots.of(channels.of(key))).as(key).isEqualTo(ClusterSlots.of(key));
			}
		}
	}

	@Test
	void classicChannelsAreOneForAllLocks() {
		NotificationChannels channels = new NotificationChannels("lock:", NotificationMode.CLASSIC);
		assertThat(channels.of("lock:a")).isEqualTo(channels.of("lock:b")).isEqualTo("lock:__released");
		assertThat(channels.isSharded()).isFalse();
	}

}
