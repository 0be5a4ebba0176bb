-- Checks, at startup, that the connection's ACL user may do what the lock scripts do (see RedisAccessProbe): calls
-- each command they call, on a key under the key prefix that no lock uses, and publishes on the release channels.
-- Each call goes through pcall, so that a refused one is reported instead of ending the script. Leaves nothing.
-- KEYS[1]: the probe key, '<key prefix>__probe'
-- ARGV[1]: the release channel (classic, or sharded in the slot of KEYS[1]: see notify.lua)
-- ARGV[2]: a grant channel no client listens on, '<release channel>:probe'
-- Returns a list of the refusals, each '<command> on <key or channel>: <Redis error>'; empty when all is allowed.
local refused = {}
local function try(target, command, ...)
    local reply = redis.pcall(command, ...)
    if type(reply) == 'table' and reply.err then
        refused[#refused + 1] = command .. target .. ': ' .. reply.err
    end
end
local key = " on key '" .. KEYS[1] .. "'"
try('', 'time')
try(key, 'hset', KEYS[1], 'probe', 1)
try(key, 'pexpire', KEYS[1], 1000)
try(key, 'hget', KEYS[1], 'probe')
try(key, 'hmget', KEYS[1], 'probe', 'other')
try(key, 'hgetall', KEYS[1])
try(key, 'hexists', KEYS[1], 'probe')
try(key, 'hlen', KEYS[1])
try(key, 'hincrby', KEYS[1], 'count', 1)
try(key, 'hdel', KEYS[1], 'count')
try(key, 'pttl', KEYS[1])
try(key, 'exists', KEYS[1])
try(key, 'type', KEYS[1])
try(key, 'del', KEYS[1])
-- as notify.lua publishes: SPUBLISH on a sharded channel (in the slot of KEYS[1]), PUBLISH on a classic one
local publish = (string.sub(ARGV[1], -1) == '}') and 'spublish' or 'publish'
try(" on channel '" .. ARGV[1] .. "'", publish, ARGV[1], '')
try(" on channel '" .. ARGV[2] .. "'", publish, ARGV[2], '')
return refused
