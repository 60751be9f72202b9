using System.Collections.Concurrent;
using DotNetty.Codecs.Http2;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>A bare SpanNetty HTTP/2 server for the client's failure paths: its SETTINGS enable the extended CONNECT or
/// not, and each stream's request gets the HEADERS <c>answer</c> returns (null: no answer ever). It records the
/// requests and the resets it receives.</summary>
internal static class ClientFakeServer
{
    public static Task<Http2Server> StartAsync(
        bool enableConnect, Func<IHttp2Headers, IHttp2Headers?> answer, ConcurrentQueue<IHttp2Headers> requests, ConcurrentQueue<Http2Error> resets) =>
        Http2Server.StartAsync(pipeline =>
        {
            var settings = new Http2Settings();
            if (enableConnect)
            {
                settings.Put((char)0x8, 1);
            }

            pipeline.AddLast(new Http2FrameCodecBuilder(isServer: true) { InitialSettings = settings, IsValidateHeaders = false }.Build());
            pipeline.AddLast(new Http2MultiplexHandler(new ActionChannelInitializer<IChannel>(stream =>
                stream.Pipeline.AddLast(new StreamHandler(answer, requests, resets)))));
        });

    public static IHttp2Headers Status(string status, params (string Name, string Value)[] fields)
    {
        var headers = new DefaultHttp2Headers { Status = new AsciiString(status) };
        foreach (var (name, value) in fields)
        {
            headers.Set(new AsciiString(name), new AsciiString(value));
        }

        return headers;
    }

    private sealed class StreamHandler(
        Func<IHttp2Headers, IHttp2Headers?> answer, ConcurrentQueue<IHttp2Headers> requests, ConcurrentQueue<Http2Error> resets) : ChannelHandlerAdapter
    {
        public override void ChannelRead(IChannelHandlerContext context, object message)
        {
            if (message is IHttp2HeadersFrame request)
            {
                requests.Enqueue(request.Headers);
                if (answer(request.Headers) is { } response)
                {
                    context.WriteAndFlushAsync(new DefaultHttp2HeadersFrame(response, endStream: false));
                }
            }

            ReferenceCountUtil.Release(message);
        }

        public override void UserEventTriggered(IChannelHandlerContext context, object evt)
        {
            if (evt is IHttp2ResetFrame reset)
            {
                resets.Enqueue(reset.ErrorCode);
            }

            context.FireUserEventTriggered(evt);
        }
    }
}
