using System.Net.WebSockets;

namespace WebSocketCodec.Testing.Contract;

/// <summary>Applications of the contract suite written on the message APIs the core offers every host:
/// <see cref="MessageWebSocket"/> and the <see cref="WebSocket"/> over it, <see cref="PipeWebSocket"/>.</summary>
public static class ContractMessageApps
{
    /// <summary>Asserts what <see cref="EchoMessagesAsync"/> reported: the texts it got, and a close exchange ended by
    /// the peer's Close with <paramref name="status"/> and <paramref name="reason"/>.</summary>
    public static async Task AssertEchoedThenClosedAsync(
        TaskCompletionSource<(List<string> Got, WebSocketCloseInfo End)> ended, string[] texts, int status, string reason)
    {
        (List<string> got, WebSocketCloseInfo end) = await ended.Task.WaitAsync(RawHttp.Timeout());
        Assert.Equal(texts, got);
        Assert.Equal(WebSocketEndReason.Closed, end.EndReason);
        Assert.Equal((CloseStatus)status, end.ReceivedStatus);
        Assert.Equal(reason, end.ReceivedReason);
    }

    /// <summary>Echoes every whole message until the peer's Close, then reports the texts it got and how the websocket
    /// ended.</summary>
    public static async Task EchoMessagesAsync(MessageWebSocket messages, TaskCompletionSource<(List<string> Got, WebSocketCloseInfo End)> ended)
    {
        try
        {
            await using (messages)
            {
                var got = new List<string>();
                while (await messages.ReceiveAsync(RawHttp.Timeout()) is { } message)
                {
                    using (message)
                    {
                        got.Add(message.GetText());
                        await messages.SendAsync(message.Payload, message.Type, RawHttp.Timeout());
                    }
                }

                ended.TrySetResult((got, await messages.Completion));
            }
        }
        catch (Exception error)
        {
            ended.TrySetException(error);
        }
    }

    /// <summary>The echo loop of ASP.NET Core's websocket samples, with a receive buffer of <paramref name="bufferSize"/>
    /// bytes (so a message comes in parts, each sent on as a fragment), ending with <c>CloseAsync</c> of the status it
    /// received; reports how the websocket ended and the state the <see cref="WebSocket"/> showed then.</summary>
    public static async Task EchoLikeAspNetCoreAsync(
        MessageWebSocket messages, int bufferSize, TaskCompletionSource<(WebSocketCloseInfo End, WebSocketState State, WebSocketCloseStatus? Status)> ended)
    {
        try
        {
            using var socket = new PipeWebSocket(messages);
            byte[] buffer = new byte[bufferSize];
            ValueWebSocketReceiveResult result = await socket.ReceiveAsync(buffer.AsMemory(), RawHttp.Timeout());
            while (result.MessageType != WebSocketMessageType.Close)
            {
                await socket.SendAsync(buffer.AsMemory(0, result.Count), result.MessageType, result.EndOfMessage, RawHttp.Timeout());
                result = await socket.ReceiveAsync(buffer.AsMemory(), RawHttp.Timeout());
            }

            await socket.CloseAsync(socket.CloseStatus!.Value, socket.CloseStatusDescription, RawHttp.Timeout());
            ended.TrySetResult((await messages.Completion, socket.State, socket.CloseStatus));
        }
        catch (Exception error)
        {
            ended.TrySetException(error);
        }
    }
}
