-- Withdraws a waiting writer's claim when it gives up (the rw_common.lua functions are prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the channel that release notifications are published on
-- Returns 1 when a claim was withdrawn (and the key published if someone waited, so readers queued behind it
--         retry); 0 otherwise.
local key, owner = KEYS[1], ARGV[1]
local now = rw_now()
local s = rw_load(key, now)
if s.foreign or not s.waiting[owner] then
    return 0
end
redis.call('HDEL', key, 'ww:' .. owner)
s.waiting[owner] = nil
rw_publish(key, s, ARGV[2])
rw_finish(key, s, now)
return 1
