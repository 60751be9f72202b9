using System.Diagnostics;
using System.Net.Sockets;
using System.Text.Json;
using WebSocketCodec.Samples.Chat;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>
/// A burst in a busy room, from independent peers: 49 node <c>ws</c> members each send 40 texts of about 200 bytes at
/// once, while a 50th member (a raw socket with a 4 KiB receive buffer) never reads. With the library's default water
/// marks, every reading member must get all 1,960 texts, each sender's in order and all in one order, and none may be
/// closed: a burst a healthy reader drains is not a slow consumer (the rule before this one closed all 49 of them).
/// </summary>
public sealed class ChatBurstTests(NodeFixture node, ITestOutputHelper output) : IClassFixture<NodeFixture>
{
    private const int Members = 49;
    private const int Texts = 40;
    private const int Size = 200;

    [SkippableTheory]
    [InlineData("kestrel")]
    [InlineData("lean")]
    public async Task EveryReadingMemberGetsEveryTextOfABurstAndNoneIsClosed(string transport)
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);
        IAsyncDisposable server;
        ChatRooms rooms;
        Uri roomUrl;
        if (transport == "lean")
        {
            LeanChatServerHost lean = LeanChatServerHost.Start(new ChatOptions { Port = 0 });
            (server, rooms, roomUrl) = (lean, lean.Rooms, lean.RoomUrl("burst"));
        }
        else
        {
            ChatServerHost kestrel = await ChatServerHost.StartAsync(new ChatOptions { Port = 0 });
            (server, rooms, roomUrl) = (kestrel, kestrel.Rooms, kestrel.RoomUrl("burst"));
        }

        await using IAsyncDisposable stopped = server;
        Assert.Equal(WebSocketSessionOptions.Default.OutboundHighWaterMark, new ChatOptions().Session.OutboundHighWaterMark);
        using Socket silent = await SilentChatMember.JoinAsync(roomUrl, "burst");
        await Eventually.True(() => rooms.Find("burst")?.MemberCount == 1);
        ChatRoom room = rooms.Find("burst")!;

        var start = new ProcessStartInfo("node", $"chat-burst.mjs {roomUrl} {Members} {Texts} {Size} 60")
        {
            WorkingDirectory = node.Directory,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using Process members = Process.Start(start)!;
        Task<string> errors = members.StandardError.ReadToEndAsync();
        try
        {
            string? opened = await members.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(30));
            if (opened != $"open {Members}")
            {
                Assert.Fail(opened + await errors.WaitAsync(TimeSpan.FromSeconds(10)));
            }

            await Eventually.True(() => room.MemberCount == Members + 1); // every member joined before anyone sends

            await members.StandardInput.WriteLineAsync("go");
            await members.StandardInput.FlushAsync();
            string? line = await members.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(90));
            await members.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(10));
            output.WriteLine(line);
            Assert.NotNull(line);
            using JsonDocument report = JsonDocument.Parse(line);
            JsonElement root = report.RootElement;
            Assert.Equal("done", root.GetProperty("how").GetString());
            Assert.Equal(Members, root.GetProperty("complete").GetInt32());
            Assert.Equal(Members * Texts, root.GetProperty("expected").GetInt32());
            Assert.Equal(0, root.GetProperty("closedEarly").GetArrayLength());
            Assert.Equal(0, root.GetProperty("outOfOrder").GetInt32());
            Assert.True(root.GetProperty("sameOrder").GetBoolean());
            Assert.Equal(0, members.ExitCode);

            // Nobody was closed as slow: the readers left with their own Close (the room now holds the silent member
            // only, whose bytes the kernel's buffers took: ChatSlowMemberTests closes such a member once the room's
            // traffic backs up in the server).
            await Eventually.True(() => room.MemberCount == 1);
            Assert.Equal(0, room.SlowMembersClosed);
        }
        finally
        {
            if (!members.HasExited)
            {
                members.Kill(entireProcessTree: true);
            }
        }
    }
}
