using System.Net.WebSockets;
using WebSocketCodec.Samples.Chat;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>
/// The chat sample's wire contract, with independent clients (<see cref="ClientWebSocket"/> over HTTP/1.1 upgrades and
/// HTTP/2 extended CONNECT in the same room): every text a member sends reaches every member, the sender included,
/// unchanged and in the same order for all; rooms are isolated; binary messages are refused with 1003; texts over the
/// limit get 1009; an empty room is removed.
/// </summary>
public sealed class ChatWireContractTests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task EveryMemberGetsEveryTextInTheSameOrderOverHttp11AndHttp2(bool tls)
    {
        const int PerMember = 50;
        await using ChatServerHost server = await ChatServerHost.StartAsync(new ChatOptions { Port = 0, Tls = tls });
        using var http2 = new HttpMessageInvoker(Http2Requests.Handler());
        ChatClient[] members =
        [
            await ChatClient.JoinAsync(server, "lobby"),
            await ChatClient.JoinAsync(server, "lobby"),
            await ChatClient.JoinAsync(server, "lobby", http2),
            await ChatClient.JoinAsync(server, "lobby", http2),
        ];
        try
        {
            await Eventually.True(() => server.Rooms.Find("lobby")?.MemberCount == members.Length);

            // Every member talks at once; JSON as the page sends it, and a text the relay must not touch.
            await Task.WhenAll(members.Select((member, m) => Task.Run(async () =>
            {
                for (int n = 0; n < PerMember; n++)
                {
                    await member.SendAsync($$"""{"nick":"m{{m}}","text":"{{n}} κόσμε 😀"}""");
                }
            }))).WaitAsync(TimeSpan.FromSeconds(30)); // every step bounded: a stall fails here instead of hanging

            List<string>[] received = await Task.WhenAll(members.Select(member => member.ReceiveAsync(members.Length * PerMember))).WaitAsync(TimeSpan.FromSeconds(30));
            foreach (List<string> texts in received)
            {
                Assert.Equal(received[0], texts); // one order for all
            }

            for (int m = 0; m < members.Length; m++)
            {
                // Each sender's texts, unchanged and in the order it sent them.
                string[] own = received[0].Where(text => text.StartsWith($$"""{"nick":"m{{m}}",""", StringComparison.Ordinal)).ToArray();
                Assert.Equal(Enumerable.Range(0, PerMember).Select(n => $$"""{"nick":"m{{m}}","text":"{{n}} κόσμε 😀"}"""), own);
            }
        }
        finally
        {
            foreach (ChatClient member in members)
            {
                await member.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task RoomsAreIsolated()
    {
        await using ChatServerHost server = await ChatServerHost.StartAsync(new ChatOptions { Port = 0 });
        using var http2 = new HttpMessageInvoker(Http2Requests.Handler());
        await using ChatClient red = await ChatClient.JoinAsync(server, "red");
        await using ChatClient blue = await ChatClient.JoinAsync(server, "blue", http2);
        await Eventually.True(() => server.Rooms.Count == 2);

        await red.SendAsync("red 1");
        Assert.Equal(["red 1"], await red.ReceiveAsync(1));
        await blue.SendAsync("blue 1");
        Assert.Equal(["blue 1"], await blue.ReceiveAsync(1));
        await red.SendAsync("red 2");
        Assert.Equal(["red 2"], await red.ReceiveAsync(1));

        await red.CloseAsync();
        await blue.CloseAsync();
        Assert.Empty(await red.ReceiveRestAsync());
        Assert.Empty(await blue.ReceiveRestAsync()); // "red 1" and "red 2" never reached the blue room
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ABinaryMessageIsRefusedWith1003AndTheRoomGoesOn(bool http2Member)
    {
        await using ChatServerHost server = await ChatServerHost.StartAsync(new ChatOptions { Port = 0 });
        using var http2 = new HttpMessageInvoker(Http2Requests.Handler());
        await using ChatClient stays = await ChatClient.JoinAsync(server, "lobby");
        await using ChatClient refused = await ChatClient.JoinAsync(server, "lobby", http2Member ? http2 : null);
        await Eventually.True(() => server.Rooms.Find("lobby")?.MemberCount == 2);

        await refused.SendBinaryAsync([1, 2, 3]);

        Assert.Equal(WebSocketCloseStatus.InvalidMessageType, await refused.Closed.WaitAsync(TimeSpan.FromSeconds(20))); // 1003
        await Eventually.True(() => server.Rooms.Find("lobby")?.MemberCount == 1);
        await stays.SendAsync("still here");
        Assert.Equal(["still here"], await stays.ReceiveAsync(1));
        Assert.Empty(await refused.ReceiveRestAsync()); // the binary message was not relayed
    }

    [Fact]
    public async Task ATextOverTheLimitGets1009AndIsNotRelayed()
    {
        await using ChatServerHost server = await ChatServerHost.StartAsync(new ChatOptions { Port = 0, MaxMessageBytes = 4096 });
        await using ChatClient stays = await ChatClient.JoinAsync(server, "lobby");
        await using ChatClient big = await ChatClient.JoinAsync(server, "lobby");
        await Eventually.True(() => server.Rooms.Find("lobby")?.MemberCount == 2);

        await big.SendAsync(new string('a', 4096)); // at the limit: relayed
        Assert.Equal(4096, (await stays.ReceiveAsync(1))[0].Length);
        await big.SendAsync(new string('a', 4097));

        Assert.Equal(WebSocketCloseStatus.MessageTooBig, await big.Closed.WaitAsync(TimeSpan.FromSeconds(20)));
        await stays.SendAsync("after");
        Assert.Equal(["after"], await stays.ReceiveAsync(1)); // the long one never came
    }

    [Fact]
    public async Task TheRoomIsRemovedWhenItsLastMemberLeavesAndMadeAgainOnTheNextJoin()
    {
        await using ChatServerHost server = await ChatServerHost.StartAsync(new ChatOptions { Port = 0 });
        await using (ChatClient first = await ChatClient.JoinAsync(server, "lobby"))
        {
            await first.SendAsync("hello");
            Assert.Equal(["hello"], await first.ReceiveAsync(1));
            Assert.Equal(1, server.Rooms.Count);
            await first.CloseAsync();
        }

        await Eventually.True(() => server.Rooms.Count == 0);
        await using ChatClient second = await ChatClient.JoinAsync(server, "lobby");
        await second.SendAsync("again");
        Assert.Equal(["again"], await second.ReceiveAsync(1));
    }
}
