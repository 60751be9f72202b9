using System.Reflection;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>
/// Lets SpanNetty's libuv transport load the operating system's libuv when no <c>libuv-shared</c> package brought one:
/// its P/Invokes name "libuv", and distributions ship <c>libuv.so.1</c> (Debian's libuv1) without the unversioned link.
/// </summary>
public static class SystemLibuv
{
    private static readonly string[] VersionedNames = ["libuv.so.1", "libuv.1.dylib"];
    private static int _installed;

    /// <summary>Installs the resolver on the libuv transport's assembly (once).</summary>
    public static void Use()
    {
        if (Interlocked.Exchange(ref _installed, 1) != 0)
        {
            return;
        }

        Assembly libuvTransport = typeof(DotNetty.Transport.Libuv.TcpServerChannel).Assembly;
        NativeLibrary.SetDllImportResolver(libuvTransport, static (name, assembly, path) =>
        {
            if (name != "libuv")
            {
                return IntPtr.Zero;
            }

            if (NativeLibrary.TryLoad(name, assembly, path, out IntPtr handle))
            {
                return handle;
            }

            foreach (string candidate in VersionedNames)
            {
                if (NativeLibrary.TryLoad(candidate, out handle))
                {
                    return handle;
                }
            }

            return IntPtr.Zero;
        });
    }
}
