package io.github.distributedlock.sample;

import java.time.LocalDate;
import java.util.List;
import java.util.stream.IntStream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Component;

/**
 * What an instance does when started without {@code --demo}: takes part in today's lottery draw. Start
 * several instances at once and exactly one of them draws.
 */
@Component
@ConditionalOnBooleanProperty(name = "sample.lottery-on-startup", matchIfMissing = true)
class LotteryRunner implements ApplicationRunner {

	private static final Log logger = LogFactory.getLog(LotteryRunner.class);

	private final LotteryService lottery;

	LotteryRunner(LotteryService lottery) {
		this.lottery = lottery;
	}

	@Override
	public void run(ApplicationArguments args) {
		String drawId = "daily-" + LocalDate.now();
		List<String> tickets = IntStream.rangeClosed(1, 1000).mapToObj((i) -> "ticket-" + i).toList();
		this.lottery.draw(drawId, tickets, 3)
			.ifPresentOrElse((winners) -> logger.info("This instance drew " + drawId + ": " + winners),
					() -> logger.info("Another instance drew " + drawId + ": " + this.lottery.winners(drawId)));
	}

}
