import { type Browser, chromium } from "playwright-core";
import { CHROMIUM_PATH } from "../requirements.ts";

/** Debian's Chromium, headless, with the flags this closed network needs (no background traffic). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
