package io.github.distributedlock.smoke.kotlin

import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.runBlocking
import org.springframework.beans.factory.getBean
import org.springframework.boot.SpringApplication
import org.springframework.boot.autoconfigure.SpringBootApplication
import org.springframework.boot.runApplication
import kotlin.system.exitProcess

/**
 * A Kotlin application with coroutines and no web server: it posts to one account from five coroutines through
 * the annotated `suspend fun` and five through `withLock`, all at once, then exits with Spring Boot's exit code.
 */
@SpringBootApplication
class CoroutineApplication

fun main(args: Array<String>) {
	val context = runApplication<CoroutineApplication>(*args)
	val ledger = context.getBean<Ledger>()
	runBlocking {
		(1..5).flatMap { listOf(async { ledger.post("account-1") }, async { ledger.postWithLock("account-1") }) }
			.awaitAll()
	}
	exitProcess(SpringApplication.exit(context))
}
