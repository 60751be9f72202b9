using System.Net.WebSockets;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.Chat;

/// <summary>
/// <c>/chat/{room}</c>, the chat's wire contract: a websocket (HTTP/1.1 upgrade or HTTP/2 extended CONNECT) that joins
/// the room; every text message a member sends is relayed unchanged to every member, the sender included, in the order
/// the room received them. A binary message is refused with Close 1003 (Unsupported Data); a text over the limit gets
/// 1009; a member that stops reading is closed with 1008 (slow consumer) instead of holding up the room: once its peer
/// took nothing of its output for the slow-consumer timeout, or it was among the furthest behind when the process's
/// broadcast budget was full.
/// </summary>
internal static class ChatEndpoint
{
    /// <summary>The route: a room name of 1 to 64 characters.</summary>
    public const string Pattern = "/chat/{room:length(1,64)}";

    public static void Map(IEndpointRouteBuilder endpoints, ChatRooms rooms, Action<WebSocketAcceptOptions> configure) =>
        endpoints.MapWebSocket(Pattern, (context, connection) => RunMemberAsync(rooms, context, connection), configure);

    private static async Task RunMemberAsync(ChatRooms rooms, HttpContext context, WebSocketConnection connection)
    {
        string name = (string)context.Request.RouteValues["room"]!;
        ChatRoom room = rooms.Join(name, connection.Driver);
        try
        {
            using var listener = new WebSocketMessageListener<ChatMember>(new ChatMember(room, connection), OnMessage, connection.Options.Pool);
            WebSocketCloseInfo ended = await connection.RunAsync(listener, context.RequestAborted);
            if (ended.EndReason == WebSocketEndReason.SlowConsumer)
            {
                room.CountSlowMember();
            }
        }
        finally
        {
            rooms.Leave(room, connection.Driver);
        }
    }

    // On the member's read loop: the text, whole and validated UTF-8, goes to the room as it is.
    private static void OnMessage(ChatMember member, WebSocketMessageType type, ReadOnlySpan<byte> payload)
    {
        if (type == WebSocketMessageType.Text)
        {
            member.Room.Relay(payload);
        }
        else
        {
            // On the read loop: the Close is queued and the loop flushes it; the task completes when the handshake ends.
            _ = member.Connection.CloseAsync(CloseStatus.UnsupportedData, "text messages only");
        }
    }

    private sealed record ChatMember(ChatRoom Room, WebSocketConnection Connection);
}
