using System.Diagnostics.CodeAnalysis;
using System.Runtime.InteropServices;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// A TCP half-close on SpanNetty's libuv transport, which has none of its own (its channels are no
/// <see cref="IDuplexChannel"/>): libuv's <c>uv_shutdown</c> on the channel's stream handle, which ends the send side
/// after every write libuv has queued (libuv is loaded by that transport, and this package does not depend on it). The
/// handle comes from the public <c>UnsafeHandle</c> of the channel's unsafe, found by name so that this package needs no
/// reference to the libuv transport. Call it on the channel's event loop (libuv's loop thread), after the writes to end
/// behind were handed to libuv.
/// </summary>
internal static class LibuvHalfClose
{
    private const int UvShutdownRequest = 4; // uv_req_type UV_SHUTDOWN

    private static readonly ShutdownCallback Callback = OnShutdown; // kept alive: libuv calls it later
    private static readonly IntPtr CallbackPointer = Marshal.GetFunctionPointerForDelegate(Callback);

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    private delegate void ShutdownCallback(IntPtr request, int status);

    /// <summary>Whether <paramref name="channel"/> is a libuv stream this can half-close.</summary>
    public static bool CanShutdown(IChannel channel) => Handle(channel) != IntPtr.Zero;

    /// <summary>Asks libuv to end the send side after its queued writes; false when it could not.</summary>
    public static bool TryShutdown(IChannel channel)
    {
        IntPtr stream = Handle(channel);
        if (stream == IntPtr.Zero || !channel.IsActive || Native is null)
        {
            return false;
        }

        try
        {
            IntPtr request = Marshal.AllocHGlobal(checked((int)Native.RequestSize(UvShutdownRequest)));
            if (Native.Shutdown(request, stream, CallbackPointer) != 0)
            {
                Marshal.FreeHGlobal(request);
                return false;
            }

            return true;
        }
        catch (Exception error) when (error is DllNotFoundException or EntryPointNotFoundException)
        {
            return false;
        }
    }

    [UnconditionalSuppressMessage("Trimming", "IL2075", Justification = "A public property of a type in the libuv transport; absent (trimmed or another transport), no half-close.")]
    private static IntPtr Handle(IChannel channel)
    {
        object? channelUnsafe = channel.Unsafe;
        return channelUnsafe?.GetType().GetProperty("UnsafeHandle")?.GetValue(channelUnsafe) is IntPtr handle ? handle : IntPtr.Zero;
    }

    private static void OnShutdown(IntPtr request, int status) => Marshal.FreeHGlobal(request);

    /// <summary>libuv's functions, from the library the libuv transport loaded (its name differs between a bundled
    /// build, "libuv", and a system one, "libuv.so.1"); null when none is there.</summary>
    private static readonly LibuvFunctions? Native = LibuvFunctions.Load();

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    private delegate IntPtr RequestSizeFunction(int type);

    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
    private delegate int ShutdownFunction(IntPtr request, IntPtr stream, IntPtr callback);

    private sealed class LibuvFunctions(RequestSizeFunction requestSize, ShutdownFunction shutdown)
    {
        public RequestSizeFunction RequestSize { get; } = requestSize;

        public ShutdownFunction Shutdown { get; } = shutdown;

        public static LibuvFunctions? Load()
        {
            foreach (string name in (string[])["libuv", "libuv.so.1", "libuv.so", "libuv.1.dylib"])
            {
                if (NativeLibrary.TryLoad(name, typeof(LibuvHalfClose).Assembly, null, out IntPtr library)
                    && NativeLibrary.TryGetExport(library, "uv_req_size", out IntPtr requestSize)
                    && NativeLibrary.TryGetExport(library, "uv_shutdown", out IntPtr shutdown))
                {
                    return new LibuvFunctions(
                        Marshal.GetDelegateForFunctionPointer<RequestSizeFunction>(requestSize),
                        Marshal.GetDelegateForFunctionPointer<ShutdownFunction>(shutdown));
                }
            }

            return null;
        }
    }
}
