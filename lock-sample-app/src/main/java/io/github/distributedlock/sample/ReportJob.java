package io.github.distributedlock.sample;

import java.time.Duration;
import java.util.List;

import io.github.distributedlock.annotation.DistributedLock;
import io.github.distributedlock.annotation.OnLockFailure;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A scheduled job that every instance schedules and that runs once per period across all of them: the
 * first instance to fire takes the lock and runs; the others find it taken and skip
 * ({@code acquireTimeout = "0"}, {@code onFailure = SKIP}). The minimum hold ({@code holdAtLeast}) keeps
 * the lock taken after a quick run, so that an instance whose clock is a little behind, firing a moment
 * later, still finds it taken instead of running the period's job a second time. Choose it shorter than the
 * period and longer than the instances' clock differences and the scheduler's jitter.
 * <p>
 * A run that takes longer than the period keeps the lock for as long as it works: every instance skips the
 * firings that come meanwhile, so runs never overlap, and the first firing after the run ended runs the job
 * again, once.
 * <p>
 * On with {@code sample.report.enabled=true}; the period is {@code sample.report.cron} (every 10 s by
 * default), the minimum hold {@code sample.report.hold-at-least} (5 s), and how long each run works
 * {@code sample.report.work} (0 by default: the report is quick).
 */
@Component
@EnableScheduling
@ConditionalOnBooleanProperty(name = "sample.report.enabled")
public class ReportJob {

	private static final Log logger = LogFactory.getLog(ReportJob.class);

	/** The Redis list of runs, {@code <instance>@<epoch ms>} each; it expires with the sample's data. */
	static final String RUNS_KEY = "sample:report:runs";

	private final StringRedisTemplate redis;

	private final String instance;

	private final Duration work;

	public ReportJob(StringRedisTemplate redis, org.springframework.core.env.Environment environment) {
		this.redis = redis;
		this.instance = environment.getProperty("sample.instance-name", "instance-" + ProcessHandle.current().pid());
		this.work = environment.getProperty("sample.report.work", Duration.class, Duration.ZERO);
	}

	@Scheduled(cron = "${sample.report.cron:*/10 * * * * *}")
	@DistributedLock(name = "report-job", acquireTimeout = "0", onFailure = OnLockFailure.SKIP,
			holdAtLeast = "${sample.report.hold-at-least:5s}")
	public void run() {
		long now = System.currentTimeMillis();
		this.redis.opsForList().rightPush(RUNS_KEY, this.instance + "@" + now);
		this.redis.expire(RUNS_KEY, SampleData.TTL);
		if (!this.work.isZero()) {
			logger.info(this.instance + " is working on the report for " + this.work.toMillis() + " ms");
			try {
				Thread.sleep(this.work.toMillis());   // stands for a report that takes this long to compute
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		logger.info(this.instance + " ran the report job");
	}

	/**
	 * Returns the recorded runs.
	 * @return {@code <instance>@<epoch ms>} of each run, oldest first
	 */
	public List<String> runs() {
		List<String> runs = this.redis.opsForList().range(RUNS_KEY, 0, -1);
		return (runs != null) ? runs : List.of();
	}

}
