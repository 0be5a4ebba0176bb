package io.github.distributedlock.smoke.worker;

import io.github.distributedlock.annotation.DistributedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The job: every instance fires it each second (a cron schedule, so the instances fire together); the lock lets
 * one of them run it, the others skip that second. It counts the instances inside in Redis.
 */
@Component
class ReportJob {

	private static final Logger logger = LoggerFactory.getLogger(ReportJob.class);

	private final StringRedisTemplate redis;

	private final String instance;

	ReportJob(StringRedisTemplate redis, @Value("${smoke.instance:worker}") String instance) {
		this.redis = redis;
		this.instance = instance;
	}

	@Scheduled(cron = "* * * * * *")
	@DistributedLock(name = "report")
	public void run() throws InterruptedException {
		Long inside = this.redis.opsForValue().increment("smoke:inside");
		logger.info("locked section entered by {}: inside={}", this.instance, inside);
		try {
			Thread.sleep(300);   // the report's work
		}
		finally {
			this.redis.opsForValue().decrement("smoke:inside");
			logger.info("locked section left by {}", this.instance);
		}
	}

}
