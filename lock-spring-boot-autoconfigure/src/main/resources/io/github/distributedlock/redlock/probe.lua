-- Checks, at startup, that a Redlock node's ACL user may do what the Redlock scripts do (see RedlockNodeChecks):
-- calls each command they call, on keys under the key prefix that no lock uses, and publishes on the release
-- channel. Each call goes through pcall, so that a refused one is reported instead of ending the script. Leaves
-- nothing (the keys it writes are deleted, and expire within a second if a delete is refused).
-- KEYS[1]: the probe's lock hash, '<key prefix>__probe'
-- KEYS[2]: the probe's token counter, '<key prefix>__probe~token'
-- ARGV[1]: the release channel, '<key prefix>__released' (an empty message, which no waiter takes for a key)
-- Returns a list of the refusals, each '<command> on <key or channel>: <Redis error>'; empty when all is allowed.
local refused = {}
local function try(target, command, ...)
    local reply = redis.pcall(command, ...)
    if type(reply) == 'table' and reply.err then
        refused[#refused + 1] = command .. target .. ': ' .. reply.err
    end
end
local lock = " on key '" .. KEYS[1] .. "'"
local counter = " on key '" .. KEYS[2] .. "'"
try('', 'time')
try(lock, 'exists', KEYS[1])
try(lock, 'hset', KEYS[1], 'owner', 'probe')
try(lock, 'pexpire', KEYS[1], 1000)
try(lock, 'hget', KEYS[1], 'owner')
try(lock, 'hmget', KEYS[1], 'owner', 'w')
try(lock, 'pttl', KEYS[1])
try(lock, 'del', KEYS[1])
try(counter, 'set', KEYS[2], '0', 'px', 1000)
try(counter, 'get', KEYS[2])
try(counter, 'del', KEYS[2])
try(" on channel '" .. ARGV[1] .. "'", 'publish', ARGV[1], '')
return refused
