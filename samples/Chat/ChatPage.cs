using System.Reflection;
using Microsoft.AspNetCore.Http;

namespace WebSocketCodec.Samples.Chat;

/// <summary><c>/</c>: the chat's browser page (plain HTML and JavaScript, embedded in the assembly).</summary>
internal static class ChatPage
{
    private const string ResourceName = "chat.html";

    public static async Task ServeAsync(HttpContext context)
    {
        await using Stream page = typeof(ChatPage).Assembly.GetManifestResourceStream(ResourceName)
            ?? throw new InvalidOperationException($"The resource {ResourceName} is missing.");
        context.Response.ContentType = "text/html; charset=utf-8";
        context.Response.Headers.CacheControl = "no-cache";
        await page.CopyToAsync(context.Response.Body, context.RequestAborted);
    }
}
