package io.github.distributedlock.sample;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * A lottery draw that every instance starts and that runs once: the first instance to get the lock draws
 * and stores the winners; the others skip while it draws ({@code acquireTimeout = "0"},
 * {@code onFailure = SKIP}), and any instance that comes later finds the draw done.
 */
@Service
public class LotteryService {

	private static final SecureRandom random = new SecureRandom();

	private final StringRedisTemplate redis;

	public LotteryService(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Draws the winners of {@code drawId} unless another instance draws or has drawn them.
	 * @return the winners if this call drew them; empty if another instance holds the draw's lock
	 * or already drew
	 */
	@DistributedLock(name = "lottery", key = "#drawId", acquireTimeout = "0", onFailure = OnLockFailure.SKIP)
	public Optional<List<String>> draw(String drawId, List<String> tickets, int winners) {
		if (Boolean.TRUE.equals(this.redis.hasKey(winnersKey(drawId)))) {
			return Optional.empty();
		}
		List<String> shuffled = new ArrayList<>(tickets);
		Collections.shuffle(shuffled, random);
		List<String> drawn = List.copyOf(shuffled.subList(0, Math.min(winners, shuffled.size())));
		StockService.pretendToWork();
		this.redis.opsForList().rightPushAll(winnersKey(drawId), drawn);
		// kept for the day of a daily draw; the instances that start later find it drawn
		this.redis.expire(winnersKey(drawId), SampleData.TTL);
		return Optional.of(drawn);
	}

	/**
	 * Returns the stored winners of a draw.
	 * @return the winners, empty if not drawn yet
	 */
	public List<String> winners(String drawId) {
		List<String> stored = this.redis.opsForList().range(winnersKey(drawId), 0, -1);
		return (stored != null) ? stored : List.of();
	}

	/**
	 * Tells how many times a draw's winners were stored: more than one set means it ran twice.
	 * @return the number of stored winners divided by the winners per draw
	 */
	public long storedDraws(String drawId, int winners) {
		Long size = this.redis.opsForList().size(winnersKey(drawId));
		return (size != null) ? size / winners : 0;
	}

	/**
	 * Deletes the stored winners of a draw.
	 */
	public void forget(String drawId) {
		this.redis.delete(winnersKey(drawId));
	}

	private static String winnersKey(String drawId) {
		return "sample:lottery:" + drawId + ":winners";
	}

}
