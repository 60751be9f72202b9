using System.IO.Pipelines;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.Chat;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>The chat's rooms come and go with their members: a room is made by the first join and removed by the last
/// leave, and a join that races the last leave never ends up in a room that is no longer listed (where nobody who joins
/// later would meet it).</summary>
public sealed class ChatRoomsTests
{
    [Fact]
    public void AJoinThatFindsARoomWhoseLastMemberJustLeftMakesAFreshOne()
    {
        // The interleaving that could lose a member, step by step: the last member's leave has retired the room but not
        // yet taken it out of the list when a new member finds it there.
        var rooms = new ChatRooms();
        using WebSocketConnection last = Member(), joiner = Member();
        ChatRoom old = rooms.Join("lobby", last.Driver);
        Assert.True(old.Leave(last.Driver));            // the leaver, first half: the room is retired
        ChatRoom joined = rooms.Join("lobby", joiner.Driver); // the joiner finds the retired room still listed
        rooms.Forget(old);                       // the leaver, second half

        Assert.NotSame(old, joined);
        Assert.Same(joined, rooms.Find("lobby")); // the joiner's room is the listed one: whoever joins next meets it
        Assert.Equal(1, joined.MemberCount);
    }

    [Fact]
    public async Task ManyJoinsAndLeavesOfOneRoomNeverLeaveAMemberInAnUnlistedRoom()
    {
        // Joins and leaves of one room name race on four threads; whoever is in a room must find it listed.
        var rooms = new ChatRooms();
        WebSocketConnection[] members = [.. Enumerable.Range(0, 4).Select(_ => Member())];
        int misses = 0;

        await Task.WhenAll(members.Select(member => Task.Run(() =>
        {
            for (int i = 0; i < 5_000; i++)
            {
                ChatRoom room = rooms.Join("lobby", member.Driver);
                if (!ReferenceEquals(rooms.Find("lobby"), room))
                {
                    Interlocked.Increment(ref misses);
                }

                rooms.Leave(room, member.Driver);
            }
        })));

        Assert.Equal(0, misses);
        Assert.Equal(0, rooms.Count);
        foreach (WebSocketConnection member in members)
        {
            member.Dispose();
        }
    }

    // A server websocket that is never run: enough to be a group member.
    private static WebSocketConnection Member() => new(new DuplexPipe(new Pipe().Reader, new Pipe().Writer), WebSocketRole.Server);

    private sealed record DuplexPipe(PipeReader Input, PipeWriter Output) : IDuplexPipe;
}
