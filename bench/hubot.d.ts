// The part of Hubot 14 (an untyped ESM package, a devDependency) the durable bench uses.
declare module 'hubot' {
  export class User {
    constructor(id: string, options?: Record<string, unknown>);
    id: string;
  }
  export class TextMessage {
    constructor(user: User, text: string, id: string);
    id: string;
    text: string;
  }
  export interface Envelope {
    message: TextMessage;
    user: User;
    room?: string;
  }
  export class Adapter {
    constructor(robot: Robot);
    robot: Robot;
    send(envelope: Envelope, ...strings: string[]): Promise<unknown>;
    reply(envelope: Envelope, ...strings: string[]): Promise<unknown>;
    run(): Promise<void>;
    close(): void;
  }
  export interface Response {
    send(...strings: string[]): Promise<unknown>;
  }
  export class Robot {
    constructor(adapter: { use(robot: Robot): Adapter }, httpd: boolean, name?: string);
    loadAdapter(): Promise<void>;
    hear(regex: RegExp, callback: (response: Response) => unknown): void;
    receive(message: TextMessage): Promise<unknown>;
    run(): Promise<void>;
    shutdown(): void;
  }
}
