-- Withdraws a waiting reader's claim and admission when it gives up (the rw_common.lua functions are
-- prepended).
-- KEYS[1]: the lock's hash (fields: see rw_common.lua)
-- ARGV[1]: owner id of one acquisition attempt, "<client id>:<thread id>/<attempt>"
-- ARGV[2]: the channel that release notifications are published on
-- Returns 1 when something was withdrawn (and the key published if someone waited, so a writer waiting for
--         admitted readers tries again); 0 otherwise.
local key, owner = KEYS[1], ARGV[1]
local now = rw_now()
local s = rw_load(key, now)
if s.foreign or (not s.rwaiting[owner] and not s.admitted[owner]) then
    return 0
end
redis.call('HDEL', key, 'rw:' .. owner, 'ra:' .. owner)
s.rwaiting[owner] = nil
if s.admitted[owner] then
    s.admitted[owner] = nil
    s.nadmitted = s.nadmitted - 1
    rw_publish(key, s, ARGV[2])
end
rw_finish(key, s, now)
return 1
