-- Extends the lease of a reentrant lock while its owner holds it (the watchdog).
-- KEYS[1]: the lock's hash; one field per owner id, its value the owner's hold count (and "~w")
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: lease in milliseconds
-- Returns 1 when extended (never shortened); 0 when the owner no longer holds the lock (it was lost).
if redis.call('hexists', KEYS[1], ARGV[1]) == 0 then
    return 0
end
if redis.call('pttl', KEYS[1]) < tonumber(ARGV[2]) then
    redis.call('pexpire', KEYS[1], ARGV[2])
end
return 1
