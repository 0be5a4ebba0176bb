-- The one way the lock scripts publish a notification; prepended to each script that publishes.
-- A release channel comes in one of two shapes (see NotificationChannels):
--   classic: '<key prefix>__released', published with PUBLISH (broadcast to every node of a Redis Cluster);
--   sharded: '<key prefix>__released{<tag>}', whose hash tag puts it in the hash slot of the script's lock key,
--            published with SPUBLISH (Redis 7.0+): the message stays in the shard that owns the slot. Told apart
--            by the closing brace, which a classic channel never ends with.
-- A grant channel is its release channel followed by ':<client id>' (the same slot).
-- pcall: a notification that cannot be published (a user without the channel's permission) never undoes the
-- release or grant; waiters find it at their next timed try. The startup check (probe.lua) reports such a user.
local function notify(channel, suffix, message)
    local command = (string.sub(channel, -1) == '}') and 'SPUBLISH' or 'PUBLISH'
    redis.pcall(command, channel .. suffix, message)
end
